//go:build !windows

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 26 #6: a file ReadFile refuses by name was read through a symbolic link with a
// harmless name (ln -s .env notes.txt), or through a link to a directory of credentials.
// Every tool that reads a file judges the file the path leads to, not only the name.
func TestSecretsThroughLinksAreRefused(t *testing.T) {
	home := t.TempDir()
	writeTestFile(t, home, ".aws/credentials", "aws_secret_access_key = AKIA-link-secret\n")
	writeTestFile(t, home, ".docker/config.json", `{"auths":{"x":{"auth":"docker-link-secret"}}}`+"\n")
	work := t.TempDir()
	writeTestFile(t, work, ".env", "API_KEY=env-link-secret\n")
	writeTestFile(t, work, "real.txt", "harmless text\n")
	for link, target := range map[string]string{
		"notes.txt":  ".env",                                     // the case
		"aws.txt":    filepath.Join(home, ".aws", "credentials"), // a link to a file outside
		"dockerdir":  filepath.Join(home, ".docker"),             // a link to a directory outside
		"awsdir":     filepath.Join(home, ".aws"),
		"chain.txt":  "notes.txt", // a link to a link
		"plain.txt":  "real.txt",  // a harmless link still works
		"sub/up.txt": "../.env",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(work, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(work, link)); err != nil {
			t.Fatal(err)
		}
	}
	env := Env{WorkDir: work}
	read, grep, edit := NewReadFile(env), NewGrep(env), NewStrReplaceFile(env)
	refused := []struct {
		name string
		tool Tool
		args map[string]any
	}{
		{"ReadFile link to .env", read, map[string]any{"path": "notes.txt"}},
		{"ReadFile link to a link", read, map[string]any{"path": "chain.txt"}},
		{"ReadFile link in a subdirectory", read, map[string]any{"path": "sub/up.txt"}},
		{"ReadFile link to ~/.aws/credentials", read, map[string]any{"path": "aws.txt"}},
		{"ReadFile through a linked directory", read, map[string]any{"path": "dockerdir/config.json"}},
		{"ReadFile absolute path through a link", read, map[string]any{"path": filepath.Join(work, "notes.txt")}},
		{"Grep link to .env", grep, map[string]any{"pattern": "secret", "path": "notes.txt", "output_mode": "content"}},
		{"Grep link to ~/.aws/credentials", grep, map[string]any{"pattern": "secret", "path": "aws.txt", "output_mode": "content"}},
		{"Grep file through a linked directory", grep, map[string]any{"pattern": "secret", "path": "dockerdir/config.json", "output_mode": "content"}},
		{"StrReplaceFile link to .env", edit, map[string]any{"path": "notes.txt", "edit": map[string]any{"old": "API_KEY=e", "new": "API_KEY=e"}}},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			res := runSearchTool(t, tt.tool, tt.args)
			if !res.IsError || strings.Contains(res.Output, "link-secret") {
				t.Errorf("not refused: %+v", res)
			}
		})
	}
	// A directory search through a link: the credentials are left out, the rest searched,
	// by both engines (rg is told to skip such names unseen, so only the Go engine names
	// what it skipped).
	for _, rg := range []string{"", LookRipgrep(os.Getenv("PATH"))} {
		for _, dir := range []string{"dockerdir", "awsdir", "."} {
			res := runSearchTool(t, NewGrep(Env{WorkDir: work, Ripgrep: rg}), map[string]any{"pattern": "secret|harmless", "path": dir, "output_mode": "content"})
			if strings.Contains(res.Output, "link-secret") {
				t.Errorf("Grep %s (rg %q) returned a secret:\n%s", dir, rg, res.Output)
			}
			if rg == "" && dir != "." && !strings.Contains(res.Output, "never searched") {
				t.Errorf("Grep %s does not say what it skipped:\n%s", dir, res.Output)
			}
			if dir == "." && !strings.Contains(res.Output, "harmless") {
				t.Errorf("Grep . (rg %q) missed the harmless file:\n%s", rg, res.Output)
			}
		}
	}
	if res := runSearchTool(t, read, map[string]any{"path": "plain.txt"}); res.IsError || !strings.Contains(res.Output, "harmless") {
		t.Errorf("a link to a harmless file was refused: %+v", res)
	}
}

package tools

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// withoutSecretNote drops the note about skipped secret files: the pure-Go engine lists
// every secret-looking file it passed, while rg is told to skip them and cannot say so.
func withoutSecretNote(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "Skipped ") {
			keep = append(keep, l)
		}
	}
	return strings.TrimRight(strings.Join(keep, "\n"), "\n")
}

// TestRipgrepAndGoEnginesAgree runs the same calls through both engines. It needs rg
// on PATH and is skipped otherwise.
func TestRipgrepAndGoEnginesAgree(t *testing.T) {
	rg := LookRipgrep()
	if rg == "" {
		t.Skip("rg is not installed")
	}
	root := t.TempDir()
	files := maps.Clone(grepProject)
	delete(files, ".env.example") // rg's exclusion of .env.* cannot spare it
	maps.Copy(files, map[string]string{
		".git/HEAD":              "ref\n",
		".git/info/exclude":      "excluded.txt\n",
		"excluded.txt":           "needle excluded by .git/info/exclude\n",
		"nested/.git/HEAD":       "ref\n",
		"nested/inner.log":       "needle in a nested repository's log\n",
		"nested/.gitignore":      "skip.md\n",
		"nested/skip.md":         "needle skipped\n",
		"multi.txt":              "alpha needle\nbeta\ngamma needle needle\n\ndelta\nepsilon\nzeta needle\n",
		"crlf.txt":               "needle one\r\nneedle two\r\n",
		"lib/deep/code.go":       "package deep\n\nfunc Needle() string {\n\treturn \"needle\"\n}\n",
		"web/components/list.ts": "export function needle(): void {}\n",
	})
	searchFixture(t, root, files)
	setMtime(t, root, "multi.txt", time.Hour)
	setMtime(t, root, "lib/deep/code.go", 2*time.Hour)
	if err := os.WriteFile(filepath.Join(root, "blob.bin"), []byte("\x00\x01needle"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "lib"), filepath.Join(root, "lib-link")); err != nil {
		t.Logf("no symbolic link in the fixture: %v", err)
	}

	grepCalls := []map[string]any{
		{"pattern": "needle"},
		{"pattern": "needle", "output_mode": "content"},
		{"pattern": "needle", "output_mode": "content", "-C": 1},
		{"pattern": "needle", "output_mode": "content", "-B": 2, "-n": false},
		{"pattern": "NEEDLE", "-i": true, "output_mode": "count_matches"},
		{"pattern": "needle", "type": "go", "output_mode": "content"},
		{"pattern": "needle", "type": "ts"},
		{"pattern": "needle", "glob": "*.log"},
		{"pattern": "needle", "glob": "!*.md"},
		{"pattern": "needle", "glob": "lib/**"},
		{"pattern": "needle", "path": "lib"},
		{"pattern": "needle", "path": "multi.txt", "output_mode": "content"},
		{"pattern": `gamma.*\n\ndelta`, "multiline": true, "output_mode": "content"},
		{"pattern": `needle\s+needle`, "output_mode": "count_matches"},
		{"pattern": `^needle \w+$`, "output_mode": "content"},
		{"pattern": "needle", "output_mode": "content", "head_limit": 3, "offset": 2},
		{"pattern": "needle", "glob": "*.pem"}, // a selecting glob must not reach secrets
	}
	for _, args := range grepCalls {
		goOut := runSearchTool(t, NewGrep(Env{WorkDir: root}), args)
		rgOut := runSearchTool(t, NewGrep(Env{WorkDir: root, Ripgrep: rg}), args)
		if g, r := withoutSecretNote(goOut.Output), withoutSecretNote(rgOut.Output); g != r || goOut.IsError != rgOut.IsError {
			t.Errorf("Grep %v differs:\n--- go\n%s\n--- rg\n%s", args, g, r)
		}
	}

	globCalls := []map[string]any{
		{"pattern": "**/*"},
		{"pattern": "**/*", "include_dirs": false},
		{"pattern": "**/*.log"},
		{"pattern": "lib/**"},
		{"pattern": "*"},
		{"pattern": "node_modules/**"},
	}
	for _, args := range globCalls {
		goOut := runSearchTool(t, NewGlob(Env{WorkDir: root}), args)
		rgOut := runSearchTool(t, NewGlob(Env{WorkDir: root, Ripgrep: rg}), args)
		if goOut.Output != rgOut.Output {
			t.Errorf("Glob %v differs:\n--- go\n%s\n--- rg\n%s", args, goOut.Output, rgOut.Output)
		}
	}
}

package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// systemOf returns the system message of request i.
func systemOf(srv *scripted.Server, i int) string {
	s, _ := srv.Requests()[i].Messages()[0]["content"].(string)
	return s
}

// TestSystemPromptFlags: --system-prompt and --append-system-prompt take text or a file,
// as Claude Code's do, without an agent file (issue 21 #10).
func TestSystemPromptFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "ci-prompt.md")
	os.WriteFile(file, []byte("You review diffs for a CI job.\n"), 0o644)
	tests := []struct {
		name         string
		args         []string
		code         int
		exact        string // the whole system prompt
		prefix, tail string
		stderr       string
	}{
		{name: "replace with text", args: []string{"--system-prompt", "You are terse. Answer in one line."}, exact: "You are terse. Answer in one line."},
		{name: "replace with a file", args: []string{"--system-prompt", file}, exact: "You review diffs for a CI job."},
		{name: "append text", args: []string{"--append-system-prompt", "Always answer in French."}, prefix: "You are", tail: "\n\nAlways answer in French."},
		{name: "replace and append", args: []string{"--system-prompt", file, "--append-system-prompt", "Be brief."}, exact: "You review diffs for a CI job.\n\nBe brief."},
		{name: "a file that is not there", args: []string{"--system-prompt", filepath.Join(dir, "missing.md")}, code: 2, stderr: "--system-prompt " + filepath.Join(dir, "missing.md") + ": no such file"},
		{name: "empty", args: []string{"--append-system-prompt", ""}, code: 2, stderr: "--append-system-prompt is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			r := kimi(t, srv, invocation{args: append([]string{"-p", "x"}, tt.args...)})
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			if tt.code != 0 {
				if !strings.Contains(r.stderr, tt.stderr) {
					t.Errorf("stderr lacks %q:\n%s", tt.stderr, r.stderr)
				}
				return
			}
			sys := systemOf(srv, 0)
			if tt.exact != "" && sys != tt.exact {
				t.Errorf("system prompt = %q, want %q", sys, tt.exact)
			}
			if tt.prefix != "" && (!strings.HasPrefix(sys, tt.prefix) || !strings.HasSuffix(sys, tt.tail) || len(sys) < 500) {
				t.Errorf("system prompt is not the default one plus the text: %q", sys)
			}
		})
	}
}

// TestSystemPromptOnResume: a resumed session keeps its system prompt, with a warning
// that the flag applies to new sessions.
func TestSystemPromptOnResume(t *testing.T) {
	t.Parallel()
	sessions := t.TempDir()
	srv := scripted.New(t, scripted.Text("one"), scripted.Text("two"))
	args := []string{"--session-dir", sessions, "-S", "job-1", "--system-prompt", "First prompt."}
	if r := kimi(t, srv, invocation{args: append(args, "-p", "x")}); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	r := kimi(t, srv, invocation{args: []string{"--session-dir", sessions, "-S", "job-1", "--system-prompt", "Second prompt.", "-p", "y"}})
	if r.code != 0 || !strings.Contains(r.stderr, "apply to new sessions") {
		t.Fatalf("exit %d, want 0 with a warning\n%s", r.code, r.stderr)
	}
	if sys := systemOf(srv, 1); sys != "First prompt." {
		t.Errorf("resumed with system prompt %q", sys)
	}
}

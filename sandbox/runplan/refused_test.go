//go:build unix

package runplan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/sandbox"
)

// TestRefusedPaths: the messages programs print for a refused write, as they word them,
// name the path the sandbox refused; paths inside the writable dirs, and paths kimi-run
// could not write either, are not the sandbox's doing.
func TestRefusedPaths(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	work, outside := filepath.Join(root, "work"), filepath.Join(root, "outside")
	for _, d := range []string{work, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	o := func(name string) string { return filepath.Join(outside, name) }
	plan := &Plan{workDir: work, policy: sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}}}
	tests := []struct {
		name, output string
		want         []string
	}{
		{"bash redirect", "bash: " + o("a.txt") + ": Permission denied", []string{o("a.txt")}},
		{"dash redirect", "sh: 1: cannot create " + o("a.txt") + ": Permission denied", []string{o("a.txt")}},
		{"coreutils quotes", "touch: cannot touch '" + o("b.txt") + "': Permission denied", []string{o("b.txt")}},
		{"mkdir curly quotes", "mkdir: cannot create directory ‘" + o("d") + "’: Permission denied", []string{o("d")}},
		{"go", "open " + o("c.json") + ": permission denied", []string{o("c.json")}},
		{"python", "PermissionError: [Errno 13] Permission denied: '" + o("p.txt") + "'", []string{o("p.txt")}},
		{"rm", "rm: cannot remove '" + o("x") + "': Operation not permitted", []string{o("x")}},
		{"relative from the work dir", "bash: ../outside/r.txt: Permission denied", []string{"../outside/r.txt"}},
		{"several, each once", "tee: " + o("t1") + ": Permission denied\ntee: " + o("t1") + ": Permission denied\ncp: cannot create regular file '" + o("t2") + "': Permission denied",
			[]string{o("t1"), o("t2")}},
		{"inside the work dir is not the sandbox", "bash: " + filepath.Join(work, "in.txt") + ": Permission denied", nil},
		{"a path without a refusal", "wrote " + o("fine.txt"), nil},
		{"a refusal without a path", "curl: (7) Failed to connect: Permission denied", nil},
	}
	for _, tt := range tests {
		got := plan.refusedPaths("Command failed (exit code 1).\n" + tt.output)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: refused %q, want %q", tt.name, got, tt.want)
		}
	}
	// A directory nobody but its owner may write: the file's permissions refused it, not
	// the sandbox (root may write anything, so this holds only for others).
	if os.Geteuid() != 0 {
		locked := filepath.Join(root, "locked")
		os.Mkdir(locked, 0o555)
		if got := plan.refusedPaths("bash: " + filepath.Join(locked, "f") + ": Permission denied"); len(got) != 0 {
			t.Errorf("a write the file system refuses anyway is called the sandbox's: %q", got)
		}
	}
}

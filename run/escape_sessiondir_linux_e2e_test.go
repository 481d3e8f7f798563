//go:build linux

package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestEscapeSessionFolderLinks: with the session dir inside the work dir (kept as a CI
// artifact), a sandboxed command replaces a session's folders with links to a directory
// outside. No later run, sandboxed or not, writes through them: not the session's context
// file, not a background task's output, not the file tools' before-images.
func TestEscapeSessionFolderLinks(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	work, outside := t.TempDir(), t.TempDir()
	sessions := filepath.Join(work, ".sessions")
	plant := "mkdir -p .sessions/s1 && ln -s " + outside + " .sessions/s1/tasks && ln -s " + outside + " .sessions/s1/files && ln -s " + outside + " .sessions/s2"
	srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		users := req.MessagesOf("user")
		switch last := messageText(users[len(users)-1]); {
		case last == "plant" && len(req.MessagesOf("tool")) == 0:
			return scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{"command": plant})))
		case last == "use" && len(req.MessagesOf("tool")) == 0:
			return scripted.ToolCalls(scripted.Call("WriteFile", `{"path":"x.txt","content":"x\n"}`),
				scripted.Call("Shell", callArgs(t, map[string]any{"command": "echo task output", "run_in_background": true, "description": "t"})))
		}
		return scripted.Text("done")
	})
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s0", "--sandbox", "workspace-write", "-p", "plant")})
	if r.code != 0 {
		t.Fatalf("plant: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Readlink(filepath.Join(sessions, "s1", "tasks")); err != nil {
		t.Fatalf("the links were not planted: %v", err)
	}
	r = kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s1", "-p", "use")})
	t.Logf("s1: exit %d\n%s", r.code, r.stderr)
	r = kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s2", "-p", "use")})
	if r.code != 2 || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("a session folder that is a link: exit %d, want 2 naming the link\n%s", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(outside)
	for _, e := range entries {
		t.Errorf("the run wrote %s outside", e.Name())
	}
}

//go:build linux

package run_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// smallDisk mounts a 1 MiB tmpfs for the test, or skips it where mounting is not permitted.
func smallDisk(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// fillDisk leaves about free bytes on the file system of dir.
func fillDisk(t *testing.T, dir string, free int64) {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	avail := int64(st.Bavail) * int64(st.Bsize)
	if avail <= free {
		t.Fatalf("only %d bytes free before filling", avail)
	}
	if err := os.WriteFile(filepath.Join(dir, "filler"), make([]byte, avail-free), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDiskFullIsNotACleanExit is issue 17 #9: a run whose session fills the disk still does
// its job and exits 0, but its result carries session_warning, the text summary says the
// session is incomplete, last-session never names an older session, and what was saved
// restores to a valid conversation.
func TestDiskFullIsNotACleanExit(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), smallDisk(t)
	big := `{"command":"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 45000"}`
	srv := scripted.New(t,
		scripted.Text("first answer"),
		scripted.ToolCalls(scripted.CallID("call_big", "Shell", big)), scripted.Text("second answer"),
		scripted.ToolCalls(scripted.CallID("call_big2", "Shell", big)), scripted.Text("third answer"),
	)
	if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--session", "older", "-p", "first")}); r.code != 0 {
		t.Fatalf("older run: exit %d\n%s", r.code, r.stderr)
	}
	fillDisk(t, sessions, 24<<10)

	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--session", "full", "--output-format", "stream-json", "-p", "second")})
	if r.code != 0 {
		t.Fatalf("disk-full run: exit %d, want 0 (the job was done)\n%s", r.code, r.stderr)
	}
	res := lastResult(t, r)
	warning, _ := res["session_warning"].(string)
	if !strings.Contains(warning, "not saved whole") || !strings.Contains(warning, "no space left") {
		t.Errorf("result session_warning = %q, want why the session is incomplete", warning)
	}
	if last, err := os.ReadFile(filepath.Join(sessions, "last-session")); err == nil && strings.TrimSpace(string(last)) != "full" {
		t.Errorf("last-session names %q after the disk-full run", last)
	} else if err != nil && !strings.Contains(warning, "last-session") {
		t.Errorf("last-session is gone but session_warning does not say so: %q", warning)
	}

	// Text mode, resuming the same session on the still-full disk.
	r = kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--session", "full", "-p", "third")})
	if r.code != 0 {
		t.Fatalf("text run: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "but the session is incomplete") || !strings.Contains(r.stderr, "session_warning") {
		t.Errorf("text summary does not say the session is incomplete:\n%s", r.stderr)
	}

	// What the disk kept restores to a conversation a provider accepts.
	os.Remove(filepath.Join(sessions, "filler"))
	show := kimi(t, nil, invocation{dir: work, args: sessionArgs(sessions, "--show-session", "full", "--output-format", "stream-json")})
	if show.code != 0 {
		t.Fatalf("--show-session: exit %d\n%s", show.code, show.stderr)
	}
	pending := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(show.stdout), "\n")[1:] {
		var m struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m.Role == "tool" {
			if !pending[m.ToolCallID] {
				t.Errorf("tool result %s answers no pending call", m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			continue
		}
		if len(pending) > 0 {
			t.Errorf("calls %v have no result before a %s message", pending, m.Role)
		}
		for _, c := range m.ToolCalls {
			pending[c.ID] = true
		}
	}
	if len(pending) > 0 {
		t.Errorf("the session ends with calls %v unanswered", pending)
	}
}

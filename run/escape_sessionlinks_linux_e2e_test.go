//go:build linux

package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// linkedSession makes the sessions of work in sessions, the folder of session s1 replaced by
// a link to another session's folder outside (holding marker in its conversation), as a
// command of an earlier run could replace it when the sessions are kept in the work dir;
// s2 is a session of its own. It returns the folder outside.
func linkedSession(t *testing.T, srv *scripted.Server, work, sessions, marker string) string {
	t.Helper()
	for _, run := range [][]string{{"-S", "other", "-p", marker}, {"-S", "s2", "-p", "hello"}, {"-S", "s1", "-p", "hello"}} {
		if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, run...)}); r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", run, r.code, r.stderr)
		}
	}
	outside := filepath.Join(t.TempDir(), "other")
	if err := os.Rename(filepath.Join(sessions, "other"), outside); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(sessions, "s1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(sessions, "s1")); err != nil {
		t.Fatal(err)
	}
	return outside
}

// TestEscapeSessionFolderLinkIsNotFollowed: session s1's folder is a link to a folder
// outside. Neither --show-session, nor --continue (s1 is the last session), nor a fork from
// it or into it opens anything there; each stops naming the link.
func TestEscapeSessionFolderLinkIsNotFollowed(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	const marker = "MARKER-SESSION-OUTSIDE"
	srv := scripted.NewFunc(t, func(scripted.Request) scripted.Response { return scripted.Text("done") })
	outside := linkedSession(t, srv, work, sessions, marker)
	for _, args := range [][]string{
		{"--show-session", "s1"},
		{"--continue", "-p", "again"},
		{"-S", "s3", "--fork-session", "s1", "-p", "again"},
		{"-S", "s1", "--fork-session", "s2", "-p", "again"},
	} {
		opened := watchOpens(t, outside)
		r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, args...)})
		if seen := opened(); len(seen) > 0 {
			t.Errorf("%v opened what the link s1 leads to: %v", args, seen)
		}
		if r.code == 0 || !strings.Contains(r.stderr, "symbolic link") {
			t.Errorf("%v, s1 a link: exit %d, want a failure naming the link\n%s", args, r.code, r.stderr)
		}
		if strings.Contains(r.stdout, marker) {
			t.Errorf("%v printed the conversation outside:\n%s", args, r.stdout)
		}
	}
}

// sessionTask runs session s1 of work in sessions with one background task, and returns
// the task's folder; a later run's prompt "read" calls TaskOutput for it.
func sessionTask(t *testing.T, work, sessions string) (srv *scripted.Server, taskDir string) {
	t.Helper()
	srv = scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		msgs := req.Messages()
		switch last := msgs[len(msgs)-1]; {
		case last["role"] == "user" && messageText(last) == "start":
			return scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{
				"command": "echo task output", "run_in_background": true, "description": "t"})))
		case last["role"] == "user" && messageText(last) == "read":
			return scripted.ToolCalls(scripted.Call("TaskOutput", callArgs(t, map[string]any{"task_id": filepath.Base(taskDir)})))
		}
		return scripted.Text("done")
	})
	if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s1", "-p", "start")}); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	records, _ := filepath.Glob(filepath.Join(sessions, "s1", "tasks", "*", "task.json"))
	if len(records) != 1 {
		t.Fatalf("task records: %v", records)
	}
	return srv, filepath.Dir(records[0])
}

// TestEscapeTaskRecordLinkIsSaid: a background task's record in the session's folder is
// replaced by a link to a copy outside. The next run of the session does not read it, and
// says so once in a warning.
func TestEscapeTaskRecordLinkIsSaid(t *testing.T) {
	t.Parallel()
	work, sessions, outside := t.TempDir(), t.TempDir(), t.TempDir()
	srv, taskDir := sessionTask(t, work, sessions)
	record := filepath.Join(taskDir, "task.json")
	if err := os.Rename(record, filepath.Join(outside, "task.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "task.json"), record); err != nil {
		t.Fatal(err)
	}
	opened := watchOpens(t, outside)
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s1", "--output-format", "stream-json", "-p", "again")})
	if seen := opened(); len(seen) > 0 {
		t.Errorf("the run opened what the record's link leads to: %v", seen)
	}
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	said := 0
	for _, w := range warnings(events(t, r.stdout)) {
		if strings.Contains(w, "symbolic link") && strings.Contains(w, "task record") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("%d warnings say the task record is a link, want 1:\n%s", said, r.stdout)
	}
}

// TestEscapeTaskOutputFIFOBlocksNothing: a background task's output.log in the session's
// folder is replaced by a FIFO nobody writes to. TaskOutput in the next run of the session
// does not wait for a writer: it shows no output, and the run ends.
func TestEscapeTaskOutputFIFOBlocksNothing(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	srv, taskDir := sessionTask(t, work, sessions)
	out := filepath.Join(taskDir, "output.log")
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(out, 0o600); err != nil {
		t.Fatal(err)
	}
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s1", "--output-format", "stream-json", "-p", "read")})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if n := len(testkit.OfType(events(t, r.stdout), "tool_result")); n != 1 {
		t.Errorf("%d tool results, want TaskOutput's", n)
	}
}

// TestEscapeSessionDirFIFOBlocksNothing: the session dir, kept in the work dir, is replaced
// by a FIFO nobody writes to. No run waits on it: --continue and --session fail as for a
// session dir that is a file, --list-sessions fails, and a run without a session flag goes
// on without one.
func TestEscapeSessionDirFIFOBlocksNothing(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	sessions := filepath.Join(work, ".sessions")
	if err := syscall.Mkfifo(sessions, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := scripted.NewFunc(t, func(scripted.Request) scripted.Response { return scripted.Text("done") })
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--continue", "-p", "x"}, 2},
		{[]string{"--list-sessions"}, 1},
		{[]string{"-S", "s1", "-p", "x"}, 2},
		{[]string{"-p", "x"}, 0},
	} {
		if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, c.args...)}); r.code != c.code {
			t.Errorf("%v: exit %d, want %d\n%s", c.args, r.code, c.code, r.stderr)
		}
	}
}

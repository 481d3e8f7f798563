//go:build linux

package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestEscapeSessionReadsFollowNoLink: in a session's folder (kept in the work dir, where a
// sandboxed command can write), the context file and a background task's output.log are
// replaced by links to files outside. The next run of the session reads neither through
// its link: the outside conversation reaches no request, the outside text no tool result,
// and each refusal names the link.
func TestEscapeSessionReadsFollowNoLink(t *testing.T) {
	t.Parallel()
	work, sessions, outside := t.TempDir(), t.TempDir(), t.TempDir()
	const convMarker, taskMarker = "MARKER-CONVERSATION-OUTSIDE", "MARKER-TASK-OUTSIDE"
	taskID := func() string {
		ids, _ := filepath.Glob(filepath.Join(sessions, "s2", "tasks", "*", "output.log"))
		if len(ids) != 1 {
			return ""
		}
		return filepath.Base(filepath.Dir(ids[0]))
	}
	srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		msgs := req.Messages()
		switch last := msgs[len(msgs)-1]; {
		case last["role"] == "user" && messageText(last) == "start":
			return scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{
				"command": "echo task output", "run_in_background": true, "description": "t"})))
		case last["role"] == "user" && messageText(last) == "read":
			return scripted.ToolCalls(scripted.Call("TaskOutput", callArgs(t, map[string]any{"task_id": taskID()})))
		}
		return scripted.Text("done")
	})
	for _, run := range [][]string{{"-S", "other", "-p", convMarker}, {"-S", "s1", "-p", "hello"}, {"-S", "s2", "-p", "start"}} {
		if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, run...)}); r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", run, r.code, r.stderr)
		}
	}
	if taskID() == "" {
		t.Fatal("the task left no output.log")
	}
	// The links a command would plant: s1's conversation is another's, outside; s2's
	// task output is a file outside.
	plant := func(target, link string) {
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(filepath.Join(sessions, "other", "context.jsonl"), filepath.Join(outside, "context.jsonl")); err != nil {
		t.Fatal(err)
	}
	plant(filepath.Join(outside, "context.jsonl"), filepath.Join(sessions, "s1", "context.jsonl"))
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(taskMarker+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plant(filepath.Join(outside, "secret.txt"), filepath.Join(sessions, "s2", "tasks", taskID(), "output.log"))
	before := len(srv.Requests())

	for _, args := range [][]string{{"-S", "s1"}, {"-S", "s3", "--fork-session", "s1"}} {
		r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, append(args, "-p", "again")...)})
		if r.code == 0 || !strings.Contains(r.stderr, "symbolic link") {
			t.Errorf("%v, its context file a link: exit %d, want a failure naming the link\n%s", args, r.code, r.stderr)
		}
	}
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s2", "-p", "read")})
	if r.code != 0 {
		t.Fatalf("s2: exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) < before+2 {
		t.Fatalf("TaskOutput was not called: %d requests", len(reqs)-before)
	}
	out := lastToolOutput(t, srv, len(reqs)-1)
	if !strings.Contains(out, "symbolic link") {
		t.Errorf("TaskOutput does not say why it shows no output:\n%s", out)
	}
	for i, req := range reqs[before:] {
		for _, m := range req.Messages() {
			if s := messageText(m); strings.Contains(s, convMarker) || strings.Contains(s, taskMarker) {
				t.Errorf("request %d carries what lies outside: %q", before+i, s)
			}
		}
	}
	if strings.Contains(r.stdout+r.stderr, taskMarker) {
		t.Errorf("the run printed what lies outside:\n%s\n%s", r.stdout, r.stderr)
	}
}

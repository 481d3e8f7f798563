//go:build unix

package run_test

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestForkOfAKilledRunRunsNothingTwice: exactly once holds across a fork (issue 32 #4). A
// run killed during a command leaves its call without a result; a fork of that session
// with the same prompt goes on with the turn, answers the call as interrupted rather than
// running it again, and leaves the killed session's files as they were (its missing result
// is not even appended there).
func TestForkOfAKilledRunRunsNothingTwice(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	plan := &crashPlan{steps: [][]crashCall{
		{{id: "call_1", line: "ran", command: "echo ran >> side.txt; test -e go-on || sleep 60"}},
		{{id: "call_2", line: "step 2", command: "echo step 2 >> side.txt"}},
	}}
	srv := scripted.NewFunc(t, plan.answer)
	first := kimi(t, srv, invocation{dir: work, args: crashTurn(sessions, "--output-format", "stream-json"),
		signal: syscall.SIGKILL, signalAfter: 1, signalOn: "tool_call", ready: hasLine(work, "ran")})
	if first.code == 0 {
		t.Fatalf("the first attempt was not stopped\n%s", first.stderr)
	}
	if err := os.WriteFile(filepath.Join(work, "go-on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(sessions, "job-1", "context.jsonl")
	before, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	fork := kimi(t, srv, invocation{dir: work, args: []string{"--session-dir", sessions, "--fork-session", "job-1", "--output-format", "stream-json",
		"-p", "run the plan, one step at a time"}})
	if fork.code != 0 || lastResult(t, fork)["final_text"] != crashAnswer {
		t.Fatalf("fork: exit %d\n%s\n%s", fork.code, fork.stdout, fork.stderr)
	}
	results := checkExactlyOnce(t, plan, work, srv)
	if n := sideLines(t, work)["ran"]; n != 1 || !interrupted(results["call_1"]) {
		t.Errorf("the interrupted command ran %d times (want once), its result %q (want interrupted)", n, results["call_1"])
	}
	if after, _ := os.ReadFile(src); !bytes.Equal(after, before) {
		t.Errorf("the fork changed the killed session's context.jsonl:\nbefore %s\nafter %s", before, after)
	}
}

// TestBeforeImagesSurviveAKill: a file a tool changed is put back by --rewind-files after
// the run that changed it was killed: its before-image was on disk before the change.
func TestBeforeImagesSurviveAKill(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	writeFiles(t, work, map[string]string{"config.yaml": "replicas: 1\n"})
	srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		if users := req.MessagesOf("user"); users[len(users)-1]["content"] == "do it differently" {
			return scripted.Text("after the rewind")
		}
		switch len(req.MessagesOf("tool")) {
		case 0:
			return scripted.ToolCalls(scripted.Call("WriteFile", `{"path":"config.yaml","content":"replicas: 9\n"}`),
				scripted.Call("WriteFile", `{"path":"notes.md","content":"scratch\n"}`))
		case 2:
			return scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo waiting >> side.txt; sleep 60"}`))
		}
		return scripted.Text("after the rewind")
	})
	first := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "job", "--output-format", "stream-json", "-p", "scale it"),
		signal: syscall.SIGKILL, signalAfter: 2, signalOn: "tool_call", ready: hasLine(work, "waiting")})
	if first.code == 0 {
		t.Fatalf("the run was not stopped\n%s", first.stderr)
	}
	if got := readOr(filepath.Join(work, "config.yaml"), "-"); got != "replicas: 9\n" {
		t.Fatalf("config.yaml = %q before the rewind", got)
	}
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "job", "--rewind", "0", "--rewind-files", "-p", "do it differently")})
	if r.code != 0 {
		t.Fatalf("rewind: exit %d\n%s", r.code, r.stderr)
	}
	if c, n := readOr(filepath.Join(work, "config.yaml"), "-"), readOr(filepath.Join(work, "notes.md"), "-"); c != "replicas: 1\n" || n != "-" {
		t.Errorf("after the rewind config.yaml %q (want its first content), notes.md %q (want it gone)", c, n)
	}
}

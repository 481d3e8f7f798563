//go:build unix

package run_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestFilesChangedCoverAKilledTurn: a run writes w1.txt with WriteFile, c2.txt from a
// command, w3.txt with WriteFile, and is killed (SIGKILL) in a command that wrote w4.txt;
// the same command line continues the turn and its result lists all four, though it
// changed none itself: what the killed run kept lives in the session's folder.
func TestFilesChangedCoverAKilledTurn(t *testing.T) {
	t.Parallel()
	work := gitRepo(t, map[string]string{"a.txt": "a\n"})
	sessions, goOn := t.TempDir(), filepath.Join(t.TempDir(), "go-on")
	steps := []scripted.Part{
		scripted.CallID("w1", "WriteFile", `{"path":"w1.txt","content":"one\n"}`),
		scripted.CallID("c2", "Shell", `{"command":"echo two > c2.txt"}`),
		scripted.CallID("w3", "WriteFile", `{"path":"w3.txt","content":"three\n"}`),
		scripted.CallID("w4", "Shell", fmt.Sprintf(`{"command":"echo four > w4.txt; test -e %s || sleep 60"}`, goOn)),
	}
	// The step after the last call the conversation holds, then the answer.
	srv := callsInOrder(t, steps)
	args := crashTurn(sessions, "--output-format", "stream-json")
	written := func() bool {
		_, err := os.Stat(filepath.Join(work, "w4.txt"))
		return err == nil
	}
	first := kimi(t, srv, invocation{dir: work, args: args, signal: syscall.SIGKILL, signalAfter: 4, signalOn: "tool_call", ready: written})
	if first.code == 0 {
		t.Fatalf("the first attempt was not stopped\n%s", first.stderr)
	}
	if err := os.WriteFile(goOn, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	retry := kimi(t, srv, invocation{dir: work, args: args})
	if retry.code != 0 {
		t.Fatalf("retry exit %d\n%s\n%s", retry.code, retry.stdout, retry.stderr)
	}
	want := "c2.txt created +1 -0|w1.txt created +1 -0|w3.txt created +1 -0|w4.txt created +1 -0"
	if got := strings.Join(changedFiles(t, lastResult(t, retry)), "|"); got != want {
		t.Errorf("files_changed = %q, want %q", got, want)
	}
	// Listed once: the state is gone with the run that listed it.
	if _, err := os.Stat(filepath.Join(sessions, "job-1", "changes")); err == nil {
		t.Errorf("the tracker's state is left in the session's folder")
	}
}

// callsInOrder is a model that asks for steps one a reply, the next after the calls the
// conversation already holds (a resumed run goes on where the killed one stopped), then
// answers "done".
func callsInOrder(t *testing.T, steps []scripted.Part) *scripted.Server {
	return scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		done := 0
		for _, m := range req.MessagesOf("assistant") {
			calls, _ := m["tool_calls"].([]any)
			done += len(calls)
		}
		if done == len(steps) {
			return scripted.Text("done")
		}
		return scripted.ToolCalls(steps[done])
	})
}

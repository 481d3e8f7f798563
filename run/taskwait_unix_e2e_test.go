//go:build unix

package run_test

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// leftoverServer is a model that leaves a dev server running after its answer; told at the
// wait's first heartbeat that it still runs, it stops it, and then answers again.
func leftoverServer(t *testing.T) *scripted.Server {
	return scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		switch replies(req) {
		case 0:
			return scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{
				"command": "echo serving; exec sleep 600", "run_in_background": true, "description": "dev server"})))
		case 1:
			return scripted.Text("The tests pass.")
		case 2:
			return scripted.ToolCalls(scripted.Call("TaskStop", callArgs(t, map[string]any{"task_id": firstMatch(req, taskIDPattern)})))
		}
		return scripted.Text("The tests pass; the server is stopped.")
	})
}

// TestBackgroundWaitHeartbeat: the wait for a task left running is not silent (a task_wait
// every --heartbeat, naming it; a line on stderr in text mode), and at its first beat the
// model is entered once with the list, so it stops the server and the run ends at once,
// exit 0. Under CI=true the wait's ceiling is 600 s unless the config sets one.
func TestBackgroundWaitHeartbeat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		env     map[string]string
		config  string
		ceiling float64
	}{
		{name: "outside CI", ceiling: 3600000},
		{name: "CI", env: map[string]string{"CI": "true"}, ceiling: 600000},
		{name: "CI with a ceiling configured", env: map[string]string{"CI": "true"}, config: `{"background": {"print_wait_ceiling_s": 900}}`, ceiling: 900000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := leftoverServer(t)
			args := []string{"--output-format", "stream-json", "--heartbeat", "50ms", "--timeout", "2m", "-p", "run the tests"}
			if tc.config != "" {
				args = append(args, "--config", tc.config)
			}
			r := kimi(t, srv, invocation{env: tc.env, args: args})
			res := lastResult(t, r)
			if r.code != 0 || res["final_text"] != "The tests pass; the server is stopped." {
				t.Fatalf("exit %d, final %q\n%s", r.code, res["final_text"], r.stderr)
			}
			evs := events(t, r.stdout)
			waits := testkit.OfType(evs, "task_wait")
			if len(waits) == 0 {
				t.Fatalf("no task_wait while the run waited:\n%s", r.stdout)
			}
			tasks, _ := waits[0]["tasks"].([]any)
			if len(tasks) != 1 || tasks[0].(map[string]any)["description"] != "dev server" || waits[0]["ceiling_ms"] != tc.ceiling {
				t.Errorf("task_wait = %v, want the dev server and ceiling_ms %v", waits[0], tc.ceiling)
			}
			reqs := srv.Requests()
			reminder := strings.Join(userTexts(reqs[2]), "\n")
			if !strings.Contains(reminder, ": dev server (running ") || !strings.Contains(reminder, "TaskStop") {
				t.Errorf("the model was not told what still runs:\n%s", reminder)
			}
			ended := testkit.OfType(evs, "task_ended")
			if len(ended) != 1 || ended[0]["stopped_by"] != "task_stop" {
				t.Errorf("task_ended = %v", ended)
			}
		})
	}
	t.Run("text", func(t *testing.T) {
		t.Parallel()
		r := kimi(t, leftoverServer(t), invocation{args: []string{"--heartbeat", "50ms", "-p", "run the tests"}})
		if r.code != 0 || !strings.Contains(r.stderr, "waiting for 1 background task after ") || !strings.Contains(r.stderr, " dev server (running ") {
			t.Fatalf("exit %d; stderr does not say what the run waits for:\n%s", r.code, r.stderr)
		}
	})
}

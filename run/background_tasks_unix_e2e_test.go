//go:build unix

package run_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// Background tasks (issue 27 part 1): Shell's run_in_background, TaskList, TaskOutput,
// TaskStop, the print-mode wait after the last turn, its ceiling and keep_alive_on_exit,
// through the binary, each plain and under --sandbox workspace-write. The scripted models
// read the conversation they are sent, as a model would (a task's id and output file come
// from the Shell call's result); the tasks wait on conditions (a file the model's server
// makes when it answers), never on time.

// taskIDPattern finds a task's id and its output file in a tool result.
var (
	taskIDPattern   = regexp.MustCompile(`task_id: (bash-[0-9a-z]{8})`)
	taskPathPattern = regexp.MustCompile(`output_path: (\S+)`)
)

// lastToolText is the content of the last tool message of req, as text.
func lastToolText(req scripted.Request) string {
	tools := req.MessagesOf("tool")
	if len(tools) == 0 {
		return ""
	}
	return messageText(tools[len(tools)-1])
}

// messageText is a message's content as text, whether a string or a list of parts.
func messageText(m map[string]any) string {
	switch c := m["content"].(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			if pm, ok := p.(map[string]any); ok {
				s, _ := pm["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

// firstMatch is the first submatch of re in the tool results of req, oldest first.
func firstMatch(req scripted.Request, re *regexp.Regexp) string {
	for _, m := range req.MessagesOf("tool") {
		if sm := re.FindStringSubmatch(messageText(m)); sm != nil {
			return sm[1]
		}
	}
	return ""
}

// userTexts are the user messages of req, as text.
func userTexts(req scripted.Request) []string {
	var out []string
	for _, m := range req.MessagesOf("user") {
		out = append(out, messageText(m))
	}
	return out
}

// replies counts the model's replies in req's conversation: which request of the run it is,
// from 0.
func replies(req scripted.Request) int { return len(req.MessagesOf("assistant")) }

// sandboxModes are the two ways every scenario runs: plain and confined.
var sandboxModes = []struct {
	name string
	args []string
}{
	{"plain", nil},
	{"sandbox", []string{"--sandbox", "workspace-write"}},
}

// skipSandbox skips the confined variant where Landlock is missing.
func skipSandbox(t *testing.T, args []string) {
	t.Helper()
	if len(args) > 0 {
		needLandlock(t, 1)
	}
}

// gone reports whether no process has pid any more (a zombie runs nothing).
func gone(pid int) bool { return testkit.ProcessGone(pid) }

// taskPIDs are the pids of the task_started events.
func taskPIDs(evs []map[string]any) []int {
	var out []int
	for _, e := range testkit.OfType(evs, "task_started") {
		out = append(out, int(e["pid"].(float64)))
	}
	return out
}

// checkNothingRuns fails when a task's process is still there after the run.
func checkNothingRuns(t *testing.T, evs []map[string]any) {
	t.Helper()
	pids := taskPIDs(evs)
	if len(pids) == 0 {
		for _, e := range evs {
			t.Log(e)
		}
		t.Fatal("no task_started event")
	}
	for _, pid := range pids {
		if !gone(pid) {
			t.Errorf("task process %d still runs after the run", pid)
			syscall.Kill(-pid, syscall.SIGKILL)
		}
	}
}

// needNode skips a test that runs a server with Node.js where there is none (the README's
// machines have it).
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
}

// httpServer listens on a free port of 127.0.0.1, says so, and writes the port to a file
// of the work dir; it answers every request with "pong" and the path.
const httpServer = `node -e "const s=require('http').createServer((q,r)=>r.end('pong '+q.url));` +
	`s.listen(0,'127.0.0.1',()=>{console.log('listening on '+s.address().port);require('fs').writeFileSync('port',String(s.address().port))})"`

// TestBackgroundServerAndTaskTools: the first case. The model starts a server with
// run_in_background, runs a command against it, reads its output with TaskOutput while it
// runs, lists it, and stops it with TaskStop; the stream says when it started, what it
// printed and how it ended, the result lists it as stopped by the model, and nothing of it
// runs after the run.
func TestBackgroundServerAndTaskTools(t *testing.T) {
	t.Parallel()
	needNode(t)
	for _, mode := range sandboxModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			skipSandbox(t, mode.args)
			srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
				id, out := firstMatch(req, taskIDPattern), firstMatch(req, taskPathPattern)
				switch replies(req) {
				case 0:
					return scripted.ToolCalls(scripted.CallID("call_srv", "Shell", callArgs(t, map[string]any{
						"command": httpServer, "run_in_background": true, "description": "test server"})))
				case 1:
					// The client waits for the server to say it listens (in its output file),
					// then asks it.
					return scripted.ToolCalls(scripted.CallID("call_client", "Shell", callArgs(t, map[string]any{
						"command": "until grep -q listening '" + out + "' 2>/dev/null; do sleep 0.05; done; " +
							`node -e "fetch('http://127.0.0.1:'+require('fs').readFileSync('port','utf8')+'/ping').then(r=>r.text()).then(console.log)"`})))
				case 2:
					return scripted.ToolCalls(scripted.CallID("call_out", "TaskOutput", callArgs(t, map[string]any{"task_id": id})),
						scripted.CallID("call_list", "TaskList", `{}`))
				case 3:
					return scripted.ToolCalls(scripted.CallID("call_stop", "TaskStop", callArgs(t, map[string]any{"task_id": id, "reason": "tests done"})))
				}
				return scripted.Text("The server answered pong.")
			})
			r := kimi(t, srv, invocation{args: append([]string{"--output-format", "stream-json", "-p", "test against a server"}, mode.args...)})
			res := lastResult(t, r)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			evs := events(t, r.stdout)
			checkNothingRuns(t, evs)
			reqs := srv.Requests()
			if len(reqs) != 5 {
				t.Fatalf("%d model calls, want 5", len(reqs))
			}
			started := lastToolText(reqs[1])
			for _, want := range []string{"task_id: bash-", "status: running", "description: test server", "automatic_notification: true"} {
				if !strings.Contains(started, want) {
					t.Errorf("Shell's background result lacks %q:\n%s", want, started)
				}
			}
			if got := lastToolText(reqs[2]); !strings.Contains(got, "pong /ping") {
				t.Errorf("the command against the server got %q", got)
			}
			byCall := resultsByCall(reqs[3])
			for _, want := range []string{"retrieval_status: not_ready", "status: running", "listening on", "output_path: "} {
				if !strings.Contains(byCall["call_out"], want) {
					t.Errorf("TaskOutput lacks %q:\n%s", want, byCall["call_out"])
				}
			}
			if got := byCall["call_list"]; !strings.Contains(got, "active_background_tasks: 1") || !strings.Contains(got, "description: test server") {
				t.Errorf("TaskList:\n%s", got)
			}
			stop := lastToolText(reqs[4])
			for _, want := range []string{"status: killed", "stopped_by: task_stop", "reason: tests done"} {
				if !strings.Contains(stop, want) {
					t.Errorf("TaskStop lacks %q:\n%s", want, stop)
				}
			}
			// The model is told of the stop before its next step, as Kimi CLI tells it.
			if got := strings.Join(userTexts(reqs[4]), "\n"); !strings.Contains(got, `type="task.killed"`) {
				t.Errorf("no notice of the stop before the last step; user messages:\n%s", got)
			}
			var sawListening bool
			for _, e := range testkit.OfType(evs, "task_output") {
				sawListening = sawListening || strings.Contains(e["text"].(string), "listening on")
			}
			if !sawListening {
				t.Error("no task_output event carries the server's first line")
			}
			ended := testkit.OfType(evs, "task_ended")
			if len(ended) != 1 || ended[0]["status"] != "killed" || ended[0]["stopped_by"] != "task_stop" {
				t.Fatalf("task_ended = %v", ended)
			}
			if n := ended[0]["notification"].(map[string]any); n["type"] != "task.killed" || n["severity"] != "warning" {
				t.Errorf("notification = %v", n)
			}
			bt, _ := res["background_tasks"].([]any)
			if len(bt) != 1 || bt[0].(map[string]any)["status"] != "killed" || bt[0].(map[string]any)["stopped_by"] != "task_stop" {
				t.Errorf("result background_tasks = %v", res["background_tasks"])
			}
		})
	}
}

// waitForFile is a command that waits until the work dir holds name, then says done.
func waitForFile(name, done string) string {
	return "until [ -e " + name + " ]; do sleep 0.05; done; echo " + done
}

// taskThenReentry is a model that starts a background task (description) which waits for
// the file "go" in dir and then prints done; it answers first as the turn's last step and
// lets the task end only then, and answers then to every later request (the re-entry).
func taskThenReentry(t *testing.T, dir, description, done, first string, then scripted.Response) *scripted.Server {
	t.Helper()
	return scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		switch replies(req) {
		case 0:
			return scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{
				"command": waitForFile("go", done), "run_in_background": true, "description": description})))
		case 1:
			touch(t, dir, "go")
			return scripted.Text(first)
		}
		return then
	})
}

// touch makes the file name in dir, failing t.
func touch(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
		t.Error(err)
	}
}

// TestBackgroundWaitReentersTheModel: the print-mode wait. The model's last answer leaves a
// task running; the run waits for it, then enters the model once more with a reminder and
// the task's notification, and that turn's answer is the run's. (Kimi CLI's
// test_real_reconcile_publishes_notification_and_triggers_reentry and
// test_real_reconcile_no_reentry_when_task_completes_without_notification: one re-entry,
// then nothing pending and the run ends with exit 0.)
func TestBackgroundWaitReentersTheModel(t *testing.T) {
	t.Parallel()
	for _, mode := range sandboxModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			skipSandbox(t, mode.args)
			dir := t.TempDir()
			// The task can end only once the turn's last step has begun.
			srv := taskThenReentry(t, dir, "build", "build finished", "The build is running.", scripted.Text("The build finished."))
			r := kimi(t, srv, invocation{dir: dir, args: append([]string{"--output-format", "stream-json", "-p", "build it"}, mode.args...)})
			res := lastResult(t, r)
			if r.code != 0 || res["final_text"] != "The build finished." {
				t.Fatalf("exit %d, final %q\n%s", r.code, res["final_text"], r.stderr)
			}
			evs := events(t, r.stdout)
			checkNothingRuns(t, evs)
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model calls, want 3 (no second re-entry once the notice was read)", len(reqs))
			}
			users := userTexts(reqs[2])
			if len(users) < 3 || !strings.HasPrefix(users[len(users)-2], "<system-reminder>") {
				t.Fatalf("the re-entry's prompt is not a reminder: %q", users)
			}
			notice := users[len(users)-1]
			for _, want := range []string{`<notification id="n`, `type="task.completed"`, `source_kind="background_task"`, "Background task completed: build", "build finished"} {
				if !strings.Contains(notice, want) {
					t.Errorf("the notice lacks %q:\n%s", want, notice)
				}
			}
			if n := len(testkit.OfType(evs, "turn_begin")); n != 2 {
				t.Errorf("%d turns, want 2", n)
			}
			ended := testkit.OfType(evs, "task_ended")
			if len(ended) != 1 || ended[0]["status"] != "completed" || ended[0]["exit_code"] != 0.0 {
				t.Errorf("task_ended = %v", ended)
			}
		})
	}
}

// TestBackgroundWaitForTwoTasks follows Kimi CLI's test_real_reconcile_multiple_tasks: two
// tasks; the first ends after the last turn and the model is entered again; the second ends
// during that turn, and it is entered once more. Three turns, exit 0.
func TestBackgroundWaitForTwoTasks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		switch replies(req) {
		case 0:
			return scripted.ToolCalls(
				scripted.Call("Shell", callArgs(t, map[string]any{"command": waitForFile("go-a", "a done"), "run_in_background": true, "description": "task a"})),
				scripted.Call("Shell", callArgs(t, map[string]any{"command": waitForFile("go-b", "b done"), "run_in_background": true, "description": "task b"})))
		case 1:
			touch(t, dir, "go-a")
			return scripted.Text("Both are running.")
		case 2:
			touch(t, dir, "go-b")
			return scripted.Text("Task a is done.")
		}
		return scripted.Text("Task b is done too.")
	})
	r := kimi(t, srv, invocation{dir: dir, args: []string{"--output-format", "stream-json", "-p", "two tasks"}})
	res := lastResult(t, r)
	if r.code != 0 || res["final_text"] != "Task b is done too." {
		t.Fatalf("exit %d, final %q\n%s", r.code, res["final_text"], r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4", len(reqs))
	}
	for i, want := range map[int]string{2: "task a", 3: "task b"} {
		if got := strings.Join(userTexts(reqs[i]), "\n"); !strings.Contains(got, "Background task completed: "+want) {
			t.Errorf("request %d does not carry %s's notice:\n%s", i, want, got)
		}
	}
	checkNothingRuns(t, events(t, r.stdout))
}

// TestBackgroundWaitCeiling: a task that never ends by itself. At [background]
// print_wait_ceiling_s the run stops it, says so on stderr, asks the model for a summary
// in one more turn and exits 1 with that summary (Kimi CLI's
// test_print_wait_timeout_kills_and_reenters_soul).
func TestBackgroundWaitCeiling(t *testing.T) {
	t.Parallel()
	for _, mode := range sandboxModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			skipSandbox(t, mode.args)
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{
					"command": "echo watching; exec sleep 600", "run_in_background": true, "description": "watcher"}))),
				scripted.Text("The watcher runs."),
				scripted.Text("Summary: the watcher never finished."))
			r := kimi(t, srv, invocation{args: append([]string{"--output-format", "stream-json", "-p", "watch",
				"--config", `{"background": {"print_wait_ceiling_s": 1}}`}, mode.args...)})
			res := lastResult(t, r)
			if r.code != 1 || res["terminal_reason"] != "background_timeout" || res["final_text"] != "Summary: the watcher never finished." {
				t.Fatalf("exit %d, reason %v, final %q\n%s", r.code, res["terminal_reason"], res["final_text"], r.stderr)
			}
			if e, _ := res["error"].(map[string]any); e["kind"] != "background" {
				t.Errorf("error = %v", res["error"])
			}
			evs := events(t, r.stdout)
			if !testkit.Any(evs, "warning", func(e map[string]any) bool {
				return e["message"] == "timed out waiting for background tasks (1s): stopped 1"
			}) {
				t.Errorf("no warning says the wait timed out:\n%s", r.stdout)
			}
			reqs := srv.Requests()
			prompt := userTexts(reqs[2])
			last := strings.Join(prompt, "\n")
			if !strings.Contains(last, "<system-reminder>") || !strings.Contains(last, ": watcher (stopped)") {
				t.Errorf("the summary turn's prompt:\n%s", last)
			}
			checkNothingRuns(t, evs)
			bt, _ := res["background_tasks"].([]any)
			if len(bt) != 1 || bt[0].(map[string]any)["stopped_by"] != "wait_ceiling" {
				t.Errorf("result background_tasks = %v", res["background_tasks"])
			}
		})
	}
}

// TestBackgroundKeepAliveOnExit: with [background] keep_alive_on_exit the run does not wait
// (Kimi CLI's test_print_skips_wait_when_keep_alive_on_exit_enabled): it ends at once with
// exit 0, the task still running, which the result and a warning say with its pid; the task
// writes its own output file, which keeps growing after the run.
func TestBackgroundKeepAliveOnExit(t *testing.T) {
	t.Parallel()
	for _, mode := range sandboxModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			skipSandbox(t, mode.args)
			dir := t.TempDir()
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{
					"command": "echo up; " + waitForFile("stop-now", "stopping"), "run_in_background": true, "description": "daemon"}))),
				scripted.Text("The daemon runs."))
			r := kimi(t, srv, invocation{dir: dir, proc: true, args: append([]string{"--output-format", "stream-json", "-p", "start it",
				"--config", `{"background": {"keep_alive_on_exit": true}}`}, mode.args...)})
			res := lastResult(t, r)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			bt, _ := res["background_tasks"].([]any)
			if len(bt) != 1 {
				t.Fatalf("result background_tasks = %v", res["background_tasks"])
			}
			task := bt[0].(map[string]any)
			pid, _ := task["pid"].(float64)
			if task["status"] != "running" || pid == 0 {
				t.Fatalf("the kept task is %v", task)
			}
			start := testkit.Started(int(pid))
			t.Cleanup(func() { testkit.Kill(int(pid), start, true) })
			if gone(int(pid)) {
				t.Fatal("the task kept alive did not outlive the run")
			}
			if !testkit.Any(events(t, r.stdout), "warning", func(e map[string]any) bool {
				return strings.HasPrefix(e["message"].(string), "left 1 background task(s) running after the run")
			}) {
				t.Errorf("no warning names the task left running:\n%s", r.stdout)
			}
			if len(srv.Requests()) != 2 {
				t.Errorf("%d model calls: the run waited for a task kept alive", len(srv.Requests()))
			}
			// The task goes on by itself and writes its own file.
			touch(t, dir, "stop-now")
			testkit.WaitGone(t, int(pid))
			b, _ := os.ReadFile(task["output_path"].(string))
			if string(b) != "up\nstopping\n" {
				t.Errorf("the kept task's output file holds %q, want what it printed before and after the run", b)
			}
		})
	}
}

// TestKilledWithABackgroundTaskDoesNotStartItAgain: exactly once (docs/design.md, issue 25
// #1) holds for background tasks. A run is killed (SIGKILL) after its Shell call started a
// task; the task dies with it (the launcher ends the run's tree); the resumed run does not
// start it again (the call has its result), lists it as lost, and tells the model so before
// its first step.
func TestKilledWithABackgroundTaskDoesNotStartItAgain(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		switch replies(req) {
		case 0:
			return scripted.ToolCalls(scripted.CallID("call_bg", "Shell", callArgs(t, map[string]any{
				"command": "echo started >> starts.txt; exec sleep 600", "run_in_background": true, "description": "server"})))
		case 1:
			return scripted.ToolCalls(scripted.CallID("call_fg", "Shell", `{"command":"sleep 60"}`))
		}
		return scripted.Text("resumed")
	})
	args := []string{"--session-dir", sessions, "--session", "job-bg", "--output-format", "stream-json", "-p", "start the server"}
	started := func() bool {
		b, _ := os.ReadFile(filepath.Join(work, "starts.txt"))
		return len(b) > 0
	}
	first := kimi(t, srv, invocation{dir: work, args: args, signal: syscall.SIGKILL, signalAfter: 2, signalOn: "tool_call", ready: started})
	if first.code == 0 {
		t.Fatalf("the first run was not stopped\n%s", first.stderr)
	}
	firstPIDs := taskPIDs(events(t, first.stdout))
	if len(firstPIDs) != 1 {
		t.Fatalf("the first run started %d tasks", len(firstPIDs))
	}
	testkit.WaitGone(t, firstPIDs[0]) // ended with the run that started it

	retry := kimi(t, srv, invocation{dir: work, args: args})
	res := lastResult(t, retry)
	if retry.code != 0 || res["final_text"] != "resumed" {
		t.Fatalf("retry exit %d\n%s", retry.code, retry.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "starts.txt")); string(b) != "started\n" {
		t.Errorf("the task started %q times over the two runs, want once", b)
	}
	evs := events(t, retry.stdout)
	if n := len(testkit.OfType(evs, "task_started")); n != 0 {
		t.Errorf("the resumed run started %d tasks", n)
	}
	ended := testkit.OfType(evs, "task_ended")
	if len(ended) != 1 || ended[0]["status"] != "lost" || !strings.Contains(ended[0]["reason"].(string), "ended first") {
		t.Fatalf("the resumed run's task_ended = %v", ended)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if got := strings.Join(userTexts(last), "\n"); !strings.Contains(got, `type="task.lost"`) {
		t.Errorf("the resumed model was not told the task was lost:\n%s", got)
	}
	if _, ok := res["background_tasks"]; ok {
		t.Errorf("the resumed run lists tasks it did not start: %v", res["background_tasks"])
	}
}

// TestBackgroundTasksAreTheMainAgents: a subagent gets no task tools and its Shell refuses
// run_in_background (Kimi CLI: "Background tasks can only be managed by the root agent").
func TestBackgroundTasksAreTheMainAgents(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("Agent", `{"description":"helper","prompt":"start a server"}`)),
		scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{"command": "sleep 600", "run_in_background": true, "description": "server"}))),
		scripted.Text("I could not."),
		scripted.Text("done"))
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "delegate"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if got := lastToolText(reqs[2]); !strings.Contains(got, "only the main agent can start background tasks") {
		t.Errorf("the subagent's Shell answered %q", got)
	}
	if strings.Contains(string(reqs[1].Raw), `"TaskList"`) {
		t.Error("the subagent was offered TaskList")
	}
	if n := len(testkit.OfType(events(t, r.stdout), "task_started")); n != 0 {
		t.Errorf("%d tasks started", n)
	}
}

// TestBackgroundConfigKeys: the [background] keys are held to Kimi CLI's bounds (exit 2
// before any model call), the keys of Kimi's worker processes are named in a warning, and
// max_running_tasks refuses a task past it.
func TestBackgroundConfigKeys(t *testing.T) {
	t.Parallel()
	t.Run("out of bounds", func(t *testing.T) {
		t.Parallel()
		for key, bad := range map[string]int{"max_running_tasks": 0, "read_max_bytes": 100, "agent_task_timeout_s": 59, "print_wait_ceiling_s": 0, "kill_grace_period_ms": 99} {
			r := kimi(t, nil, invocation{args: []string{"-p", "x", "--config", `{"background": {"` + key + `": ` + strconv.Itoa(bad) + `}}`}})
			if r.code != 2 || !strings.Contains(r.stderr, "background."+key+" must be at least") {
				t.Errorf("%s = %d: exit %d\n%s", key, bad, r.code, r.stderr)
			}
		}
	})
	t.Run("worker keys", func(t *testing.T) {
		t.Parallel()
		srv := scripted.New(t, scripted.Text("ok"))
		r := kimi(t, srv, invocation{args: []string{"-p", "x", "--config", `{"background": {"worker_stale_after_ms": 5000, "wait_poll_interval_ms": 100, "keep_alive_on_exit": false}}`}})
		if r.code != 0 || !strings.Contains(r.stderr, "background.wait_poll_interval_ms, background.worker_stale_after_ms has no effect in kimi-run") {
			t.Errorf("exit %d\n%s", r.code, r.stderr)
		}
	})
	t.Run("max_running_tasks", func(t *testing.T) {
		t.Parallel()
		srv := scripted.New(t,
			scripted.ToolCalls(
				scripted.CallID("c1", "Shell", callArgs(t, map[string]any{"command": "exec sleep 600", "run_in_background": true, "description": "one"})),
				scripted.CallID("c2", "Shell", callArgs(t, map[string]any{"command": "exec sleep 600", "run_in_background": true, "description": "two"}))),
			scripted.Text("one runs"),
			scripted.Text("it was stopped"))
		r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "x",
			"--config", `{"background": {"max_running_tasks": 1, "print_wait_ceiling_s": 1}}`}})
		if r.code != 1 {
			t.Errorf("exit %d, want 1 (the task that started ran past the ceiling)\n%s", r.code, r.stderr)
		}
		res := resultsByCall(srv.Requests()[1])
		refused := 0
		for _, c := range []string{"c1", "c2"} {
			if strings.Contains(res[c], "the most it may have at once ([background] max_running_tasks)") {
				refused++
			}
		}
		if refused != 1 {
			t.Errorf("%d of two tasks refused, want 1: %v", refused, res)
		}
		checkNothingRuns(t, events(t, r.stdout))
	})
}

// TestNotificationHookFires: the Notification hooks fire as the model is told of a task's
// end (Kimi CLI fires them when it hands a notification to the model), with Kimi's fields,
// matched on the notification's type.
func TestNotificationHookFires(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := taskThenReentry(t, dir, "build", "done", "Started.", scripted.Text("Finished."))
	hooks := `{"hooks": [{"event": "Notification", "matcher": "task\\.completed", "command": "cat >> notified.jsonl; echo >> notified.jsonl"},
		{"event": "Notification", "matcher": "task\\.failed", "command": "echo wrong >> notified.jsonl"}]}`
	r := kimi(t, srv, invocation{dir: dir, args: []string{"-p", "build", "--config", hooks}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "notified.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(b))), &got); err != nil {
		t.Fatalf("the hook got %q: %v", b, err)
	}
	if got["hook_event_name"] != "Notification" || got["sink"] != "llm" || got["notification_type"] != "task.completed" ||
		got["title"] != "Background task completed: build" || got["severity"] != "success" {
		t.Errorf("the hook's input = %v", got)
	}
}

// TestBackgroundWithoutSession: with --no-session a task's folder is a temporary one, made
// for the first task and removed when the run ends.
func TestBackgroundWithoutSession(t *testing.T) {
	t.Parallel()
	srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		if replies(req) == 0 {
			return scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{
				"command": "echo hi", "run_in_background": true, "description": "greeting"})))
		}
		return scripted.Text("done")
	})
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--no-session", "-p", "greet"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	started := testkit.OfType(events(t, r.stdout), "task_started")
	if len(started) != 1 {
		t.Fatalf("task_started = %v", started)
	}
	folder := filepath.Dir(filepath.Dir(started[0]["output_path"].(string)))
	if !strings.HasPrefix(filepath.Base(folder), "kimi-run-tasks-") {
		t.Errorf("the task's folder is in %s", folder)
	}
	if _, err := os.Stat(folder); !os.IsNotExist(err) {
		t.Errorf("the temporary folder %s is still there (%v)", folder, err)
	}
}

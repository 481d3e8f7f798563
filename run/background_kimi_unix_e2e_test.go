//go:build unix

package run_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// Kimi CLI's own print-mode tests of background tasks and notifications, re-expressed
// through kimi-run's binary (Kimi CLI 1.49, MoonshotAI/kimi-cli):
//   - tests/core/test_print_background_integration.py: TestBackgroundWaitReentersTheModel
//     and TestBackgroundWaitForTwoTasks (the other file), TestKimiBackgroundRace here;
//   - tests/core/test_kimisoul_background_wait.py: the wait's rules, below;
//   - tests/ui_and_conv/test_print_notifications.py: TestKimiNotificationLines here, and
//     the printer's buffering cases in output/kimi_test.go (TestKimiNotificationBuffering);
//   - tests/tools/test_background_tools.py and tests/tools/test_shell_bash.py (the Shell
//     background cases): TestKimiBackgroundToolCases.
// The names of Kimi's tests are quoted where a case follows one.

// kimiLine is one line of Kimi's print-mode stream-json: a message or a notification.
type kimiLine struct {
	raw  string
	data map[string]any
}

// kimiStream parses every stdout line as a JSON object: a message (role) or a notification
// (id and category).
func kimiStream(t *testing.T, stdout string) []kimiLine {
	t.Helper()
	var out []kimiLine
	for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", l)
		}
		if m["role"] == nil && (m["id"] == nil || m["category"] == nil) {
			t.Fatalf("stdout line is neither a message nor a notification: %s", l)
		}
		out = append(out, kimiLine{raw: l, data: m})
	}
	return out
}

// kind names a Kimi line by its role, or "notification".
func (l kimiLine) kind() string {
	if r, ok := l.data["role"].(string); ok {
		return r
	}
	return "notification"
}

// TestKimiNotificationLines follows tests/ui_and_conv/test_print_notifications.py through
// the binary with --print --output-format stream-json:
//   - test_json_printer_emits_notification_as_distinct_json_event: a task's end is a line
//     of its own, Kimi's Notification object with its keys in Kimi's order;
//   - test_json_printer_preserves_tool_result_when_notification_interleaves: a task that
//     ends while a foreground command runs puts its notification between the assistant
//     message that called the command (whole, with its arguments) and the command's tool
//     message.
//
// The foreground command waits until the task's record says it ended, which kimi-run
// writes after the task_ended event: the order is the program's, not the clock's.
func TestKimiNotificationLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		switch replies(req) {
		case 0:
			return scripted.ToolCalls(scripted.CallID("call_bg", "Shell", callArgs(t, map[string]any{
				"command": waitForFile("go", "build done"), "run_in_background": true, "description": "build project"})))
		case 1:
			record := filepath.Join(filepath.Dir(firstMatch(req, taskPathPattern)), "task.json")
			return scripted.ToolCalls(scripted.CallID("call_fg", "Shell", callArgs(t, map[string]any{
				"command": "touch go; until grep -q '\"status\": \"completed\"' '" + record + "'; do sleep 0.05; done; echo seen"})))
		}
		return scripted.Text("The build is done.")
	})
	r := kimi(t, srv, invocation{dir: dir, args: []string{"--print", "--output-format", "stream-json", "-p", "build it"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines := kimiStream(t, r.stdout)
	var kinds []string
	for _, l := range lines {
		kinds = append(kinds, l.kind())
	}
	want := []string{"assistant", "tool", "assistant", "notification", "tool", "assistant"}
	if strings.Join(kinds, " ") != strings.Join(want, " ") {
		t.Fatalf("lines = %v, want %v\n%s", kinds, want, r.stdout)
	}
	n := lines[3]
	if !strings.HasPrefix(n.raw, `{"id":"n`) || !strings.Contains(n.raw, `","category":"task","type":"task.completed","source_kind":"background_task","source_id":"bash-`) {
		t.Errorf("the notification line is not Kimi's object in Kimi's order: %s", n.raw)
	}
	if n.data["title"] != "Background task completed: build project" || n.data["severity"] != "success" {
		t.Errorf("notification = %v", n.data)
	}
	if p, _ := n.data["payload"].(map[string]any); p["exit_code"] != 0.0 || p["status"] != "completed" || p["task_kind"] != "bash" {
		t.Errorf("payload = %v", n.data["payload"])
	}
	calls, _ := lines[2].data["tool_calls"].([]any)
	if len(calls) != 1 || !strings.Contains(calls[0].(map[string]any)["function"].(map[string]any)["arguments"].(string), "until grep") {
		t.Errorf("the assistant line before the notification lost its call: %s", lines[2].raw)
	}
	if lines[4].data["tool_call_id"] != "call_fg" {
		t.Errorf("the tool line after the notification: %s", lines[4].raw)
	}
	// Read in the turn (before its next step): no re-entry after it.
	if len(srv.Requests()) != 3 {
		t.Errorf("%d model calls, want 3", len(srv.Requests()))
	}
	if !strings.Contains(strings.Join(userTexts(srv.Requests()[2]), "\n"), `type="task.completed"`) {
		t.Error("the model was not told of the task's end before its next step")
	}

	// FinalOnlyJsonPrinter writes no notification. Its one line is the run's final answer:
	// the re-entry's (Kimi CLI writes one per turn it runs, the first turn's too).
	dir2 := t.TempDir()
	srv2 := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		switch replies(req) {
		case 0:
			return scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{
				"command": waitForFile("go", "done"), "run_in_background": true, "description": "build"})))
		case 1:
			touch(t, dir2, "go")
			return scripted.Text("Started.")
		}
		return scripted.Text("Finished.")
	})
	r = kimi(t, srv2, invocation{dir: dir2, args: []string{"--print", "--output-format", "stream-json", "--final-message-only", "-p", "build it"}})
	if r.code != 0 {
		t.Fatalf("final-only: exit %d\n%s", r.code, r.stderr)
	}
	if got := kimiStream(t, r.stdout); len(got) != 1 || got[0].kind() != "assistant" || got[0].data["content"] != "Finished." {
		t.Errorf("final-only lines:\n%s", r.stdout)
	}
}

// TestKimiBackgroundWaitRules follows tests/core/test_kimisoul_background_wait.py, case by
// case, where a case is about behaviour a user sees.
func TestKimiBackgroundWaitRules(t *testing.T) {
	t.Parallel()
	sleeper := func() scripted.Response {
		return scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{
			"command": "exec sleep 600", "run_in_background": true, "description": "sleeper"})))
	}

	// test_print_stream_json_does_not_wait_for_background_tasks: a conversation on stdin
	// is not held up by a task; the run's end stops it.
	t.Run("stream-json input does not wait", func(t *testing.T) {
		t.Parallel()
		srv := scripted.New(t, sleeper(), scripted.Text("started"))
		in := `{"role":"user","content":"start it"}` + "\n"
		r := kimi(t, srv, invocation{stdin: &in, args: []string{"--input-format", "stream-json", "--output-format", "stream-json"}})
		res := lastResult(t, r)
		if r.code != 0 || len(srv.Requests()) != 2 {
			t.Fatalf("exit %d after %d model calls\n%s", r.code, len(srv.Requests()), r.stderr)
		}
		evs := events(t, r.stdout)
		checkNothingRuns(t, evs)
		if bt := res["background_tasks"].([]any); bt[0].(map[string]any)["stopped_by"] != "run_end" {
			t.Errorf("background_tasks = %v", bt)
		}
	})

	// test_print_background_wait_cancel_returns_failure: SIGINT during the wait ends the
	// run (130: kimi-run's exit for SIGINT, where Kimi exits 1) and the task with it.
	t.Run("SIGINT during the wait", func(t *testing.T) {
		t.Parallel()
		srv := scripted.New(t, sleeper(), scripted.Text("started"))
		r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "start it"},
			signal: syscall.SIGINT, signalAfter: 2, signalOn: "turn_end"})
		res := lastResult(t, r)
		if r.code != 130 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		checkNothingRuns(t, events(t, r.stdout))
		if bt := res["background_tasks"].([]any); bt[0].(map[string]any)["stopped_by"] != "run_end" {
			t.Errorf("background_tasks = %v", bt)
		}
	})

	// --timeout holds during the wait as everywhere (exit 124).
	t.Run("--timeout during the wait", func(t *testing.T) {
		t.Parallel()
		srv := scripted.New(t, sleeper(), scripted.Text("started"))
		r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "start it", "--timeout", "2s"}})
		res := lastResult(t, r)
		if r.code != 124 || res["terminal_reason"] != "timeout" {
			t.Fatalf("exit %d (%v)\n%s", r.code, res["terminal_reason"], r.stderr)
		}
		checkNothingRuns(t, events(t, r.stdout))
	})

	// test_pending_reentry_soul_failure_preserves_success_exit_code: the turn that was to
	// read the results fails at the provider; the run's task was done, so it ends 0 with
	// a warning, its answer the last turn's.
	t.Run("a failed re-entry keeps the answer", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		srv := taskThenReentry(t, dir, "check", "ok", "Checking.", scripted.Status(400, scripted.ErrorBody("invalid_request_error", "no")))
		r := kimi(t, srv, invocation{dir: dir, args: []string{"--output-format", "stream-json", "-p", "check"}})
		res := lastResult(t, r)
		if r.code != 0 || res["final_text"] != "Checking." {
			t.Fatalf("exit %d, final %q\n%s", r.code, res["final_text"], r.stderr)
		}
		if !testkit.Any(events(t, r.stdout), "warning", func(e map[string]any) bool {
			return strings.HasPrefix(e["message"].(string), "reading the background tasks' results failed")
		}) {
			t.Error("no warning says the results were not read")
		}
	})

	// test_print_wait_timeout_catches_tasks_spawned_during_reentry: a task started in a
	// re-entry is held to the same ceiling.
	t.Run("a task started while reading results", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
			switch replies(req) {
			case 0:
				return scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{
					"command": waitForFile("go", "first done"), "run_in_background": true, "description": "first"})))
			case 1:
				touch(t, dir, "go")
				return scripted.Text("Started the first.")
			case 2:
				return sleeper()
			case 3:
				return scripted.Text("Started a sleeper.")
			}
			return scripted.Text("The sleeper was stopped.")
		})
		r := kimi(t, srv, invocation{dir: dir, args: []string{"--output-format", "stream-json", "-p", "go",
			"--config", `{"background": {"print_wait_ceiling_s": 1}}`}})
		res := lastResult(t, r)
		if r.code != 1 || res["terminal_reason"] != "background_timeout" || res["final_text"] != "The sleeper was stopped." {
			t.Fatalf("exit %d (%v), final %q\n%s", r.code, res["terminal_reason"], res["final_text"], r.stderr)
		}
		checkNothingRuns(t, events(t, r.stdout))
	})

	// test_print_wait_timeout_survives_followup_soul_exception: the summary turn fails;
	// the run still ends 1 for the timeout, not for the provider.
	t.Run("a failed summary", func(t *testing.T) {
		t.Parallel()
		srv := scripted.New(t, sleeper(), scripted.Text("started"), scripted.Status(400, scripted.ErrorBody("invalid_request_error", "no")))
		r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "go",
			"--config", `{"background": {"print_wait_ceiling_s": 1}}`}})
		res := lastResult(t, r)
		if r.code != 1 || res["terminal_reason"] != "background_timeout" {
			t.Fatalf("exit %d (%v)\n%s", r.code, res["terminal_reason"], r.stderr)
		}
		checkNothingRuns(t, events(t, r.stdout))
	})

	// test_print_synthetic_prompts_skip_user_prompt_hook: the re-entry's prompt is the
	// runtime's, not the user's: UserPromptSubmit hooks see the user's prompt only (a hook
	// that refused the reminder would otherwise hang or end the wait).
	t.Run("the re-entry is not a user prompt", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		srv := taskThenReentry(t, dir, "check", "ok", "Checking.", scripted.Text("Checked."))
		hooks := `{"hooks": [{"event": "UserPromptSubmit", "command": "cat >> prompts.jsonl; echo >> prompts.jsonl"}]}`
		r := kimi(t, srv, invocation{dir: dir, args: []string{"-p", "check it", "--config", hooks}})
		if r.code != 0 || strings.TrimSpace(r.stdout) != "Checked." || len(srv.Requests()) != 3 {
			t.Fatalf("exit %d after %d model calls, stdout %q\n%s", r.code, len(srv.Requests()), r.stdout, r.stderr)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "prompts.jsonl"))
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `"prompt":"check it"`) {
			t.Errorf("UserPromptSubmit saw %q", b)
		}
	})

	// A task's own timeout (Shell's timeout with run_in_background) ends it before the
	// wait's ceiling: failed, timed_out, and the model is told (Kimi's task.timed_out).
	t.Run("a task's own timeout", func(t *testing.T) {
		t.Parallel()
		srv := scripted.New(t,
			scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{
				"command": "echo begun; exec sleep 600", "run_in_background": true, "description": "slow", "timeout": 1}))),
			scripted.Text("started"), scripted.Text("It timed out."))
		r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "go"}})
		res := lastResult(t, r)
		if r.code != 0 || res["final_text"] != "It timed out." {
			t.Fatalf("exit %d, final %q\n%s", r.code, res["final_text"], r.stderr)
		}
		notice := strings.Join(userTexts(srv.Requests()[2]), "\n")
		for _, want := range []string{`type="task.timed_out"`, "Background task timed out: slow", "begun"} {
			if !strings.Contains(notice, want) {
				t.Errorf("the notice lacks %q:\n%s", want, notice)
			}
		}
		evs := events(t, r.stdout)
		ended := testkit.OfType(evs, "task_ended")
		if len(ended) != 1 || ended[0]["status"] != "failed" || ended[0]["terminal_reason"] != "timed_out" {
			t.Errorf("task_ended = %v", ended)
		}
		checkNothingRuns(t, evs)
	})
}

// TestKimiBackgroundToolCases follows tests/tools/test_background_tools.py and the Shell
// background cases of tests/tools/test_shell_bash.py in one run: each step's call is
// checked against the result the model got back.
func TestKimiBackgroundToolCases(t *testing.T) {
	t.Parallel()
	type call struct{ id, name, args string }
	bg := func(command, desc string, extra map[string]any) string {
		m := map[string]any{"command": command, "run_in_background": true, "description": desc}
		for k, v := range extra {
			m[k] = v
		}
		return callArgs(t, m)
	}
	// Each step is a reply's calls; {id} and {id2}, {big} and {slow} are the tasks' ids
	// as the model read them from Shell's results.
	steps := [][]call{
		{{"c_nodesc", "Shell", `{"command":"sleep 1","run_in_background":true}`}},
		{{"c_fg301", "Shell", `{"command":"true","timeout":301}`}},
		{{"c_bg_toolong", "Shell", bg("true", "too long", map[string]any{"timeout": 86401})}},
		{{"c_build", "Shell", bg(`printf 'build line 1\nbuild line 2\n'`, "background build", map[string]any{"timeout": 301})}},
		{{"c_out_done", "TaskOutput", `{"task_id":"{id}","block":true,"timeout":30}`}, {"c_out_missing", "TaskOutput", `{"task_id":"bash-missing0"}`}},
		{{"c_watch", "Shell", bg("exec sleep 600", "watcher", nil)}},
		{{"c_out_wait0", "TaskOutput", `{"task_id":"{id2}","block":true,"timeout":0}`}, {"c_out_snap", "TaskOutput", `{"task_id":"{id2}"}`}},
		{{"c_list_all", "TaskList", `{"active_only":false,"limit":1}`}, {"c_list", "TaskList", `{}`}},
		{{"c_stop_done", "TaskStop", `{"task_id":"{id}"}`}, {"c_stop", "TaskStop", `{"task_id":"{id2}","reason":"Stop watcher process"}`}},
		{{"c_big", "Shell", bg(`echo first marker; head -c 40000 /dev/zero | tr '\0' x; echo; echo last marker`, "big output", nil)}},
		{{"c_out_big", "TaskOutput", `{"task_id":"{big}","block":true}`}},
		{{"c_slow", "Shell", bg("echo partial output; exec sleep 600", "timeout build", map[string]any{"timeout": 1})}},
		{{"c_out_slow", "TaskOutput", `{"task_id":"{slow}","block":true,"timeout":30}`}},
	}
	ids := map[string]string{"{id}": "c_build", "{id2}": "c_watch", "{big}": "c_big", "{slow}": "c_slow"}
	srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		n := replies(req)
		if n >= len(steps) {
			return scripted.Text("All checked.")
		}
		got := resultsByCall(req)
		var parts []scripted.Part
		for _, c := range steps[n] {
			args := c.args
			for ph, callID := range ids {
				if m := taskIDPattern.FindStringSubmatch(got[callID]); m != nil {
					args = strings.ReplaceAll(args, ph, m[1])
				}
			}
			parts = append(parts, scripted.CallID(c.id, c.name, args))
		}
		return scripted.ToolCalls(parts...)
	})
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "check the task tools",
		"--config", `{"background": {"read_max_bytes": 1024}}`}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	res := resultsByCall(reqs[len(reqs)-1])
	checks := []struct {
		call, kimiTest string
		want, not      []string
	}{
		{"c_nodesc", "test_shell_background_requires_description", []string{"description is required when run_in_background is true"}, nil},
		{"c_fg301", "test_timeout_parameter_validation_bounds (foreground)", []string{"timeout must be between 1 and 300", "run it in the background"}, nil},
		{"c_bg_toolong", "test_timeout_parameter_validation_bounds (background)", []string{"between 1 and 86400 seconds, got 86401"}, nil},
		{"c_build", "test_shell_background_starts_task", []string{"task_id: bash-", "status: running", "automatic_notification: true", "timeout_s: 301"}, nil},
		{"c_out_done", "test_task_output_returns_completed_output", []string{"retrieval_status: success", "status: completed", "exit_code: 0", "output_path: ", "output_truncated: false", "full_output_hint: ", "ReadFile", "[output]\nbuild line 1\nbuild line 2"}, nil},
		{"c_out_missing", "test_task_output_missing_task_does_not_pollute_store", []string{`no background task "bash-missing0"`}, nil},
		{"c_out_wait0", "test_task_output_blocking_timeout_surfaces_timeout_retrieval_status", []string{"retrieval_status: timeout", "status: running"}, nil},
		{"c_out_snap", "test_task_output_defaults_to_non_blocking_snapshot", []string{"retrieval_status: not_ready", "status: running"}, nil},
		{"c_list_all", "test_task_list_can_include_terminal_tasks", []string{"background_tasks: 1\n", "description: watcher"}, []string{"background build"}},
		{"c_list", "test_task_list_returns_active_tasks", []string{"active_background_tasks: 1\n", "description: watcher"}, []string{"background build"}},
		{"c_stop_done", "test_task_stop_on_terminal_task_is_noop", []string{"had ended already", "status: completed"}, []string{"stopped_by"}},
		{"c_stop", "test_task_stop_requests_stop_for_running_task", []string{"status: killed", "stopped_by: task_stop", "reason: Stop watcher process"}, nil},
		{"c_out_big", "test_task_output_surfaces_truncated_preview_and_full_log_path", []string{"output_truncated: true", "output_preview_bytes: ", "[only the last", "last marker"}, []string{"first marker"}},
		{"c_out_slow", "test_task_output_explicitly_surfaces_timeout_contract", []string{"status: failed", "interrupted: true", "timed_out: true", "terminal_reason: timed_out", "reason: it ran past its timeout of 1s", "partial output"}, nil},
	}
	for _, c := range checks {
		got, ok := res[c.call]
		if !ok {
			t.Errorf("%s (%s): no result", c.call, c.kimiTest)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s (%s): lacks %q:\n%s", c.call, c.kimiTest, w, got)
			}
		}
		// What must not be there is looked for in the output part (the command line may
		// name it).
		body := got
		if _, after, ok := strings.Cut(got, "[output]"); ok {
			body = after
		}
		for _, n := range c.not {
			if strings.Contains(body, n) {
				t.Errorf("%s (%s): has %q:\n%s", c.call, c.kimiTest, n, got)
			}
		}
	}
	checkNothingRuns(t, events(t, r.stdout))
}

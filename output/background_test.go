package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/event"
)

// taskNotification is the notification of a finished build, as tools/background makes it.
func taskNotification(id, typ, title, severity string) event.Notification {
	return event.Notification{ID: id, Category: "task", Type: typ, SourceKind: "background_task", SourceID: "bash-b1234567",
		Title: title, Body: "Task ID: bash-b1234567\nStatus: completed", Severity: severity, CreatedAt: 123.456,
		Payload: map[string]any{"task_id": "bash-b1234567"}}
}

// backgroundRun starts a background task, answers, and is entered again once the task
// ended (issue 27): the task's events, its notification and the re-entry's turn.
func backgroundRun() []event.Event {
	c := newClock()
	zero := 0
	return []event.Event{
		c.ev(event.Init{SchemaVersion: event.SchemaVersion, SessionID: "s-bg", Model: "kimi-k2", BaseURLHost: "api.moonshot.ai",
			WorkDir: "/src/app", Tools: []string{"Shell", "TaskList", "TaskOutput", "TaskStop"}}),
		c.ev(event.TurnBegin{Turn: 1}),
		c.ev(event.StepBegin{Turn: 1, Step: 1}),
		c.ev(event.ToolCall{Step: 1, ID: "c1", Name: "Shell",
			Arguments: json.RawMessage(`{"command":"make build","run_in_background":true,"description":"build project"}`)}),
		c.ev(event.Usage{Step: 1, InputTokens: 100, OutputTokens: 20}),
		c.ev(event.TaskStarted{TaskID: "bash-b1234567", Kind: "bash", Description: "build project", Command: "make build",
			ToolCallID: "c1", TimeoutS: 900, OutputPath: "/state/tasks/bash-b1234567/output.log", PID: 4242}),
		c.ev(event.TaskOutput{TaskID: "bash-b1234567", Text: "compiling\n"}),
		c.ev(event.ToolResult{Step: 1, ID: "c1", Name: "Shell", Output: "task_id: bash-b1234567\nstatus: running",
			Kimi: &event.KimiToolText{Message: "Background task started", Output: "task_id: bash-b1234567\nstatus: running"}}),
		c.ev(event.StepBegin{Turn: 1, Step: 2}),
		c.ev(event.Text{Step: 2, Delta: "The build "}),
		// The task ends while the answer streams: its notification waits for the message.
		c.ev(event.TaskOutput{TaskID: "bash-b1234567", Text: "done\n"}),
		c.ev(event.TaskEnded{TaskID: "bash-b1234567", Kind: "bash", Description: "build project", Status: "completed",
			TerminalReason: "completed", ExitCode: &zero, DurationMS: 1500, OutputBytes: 15,
			Notification: taskNotification("n12345678", "task.completed", "Background task completed: build project", "success")}),
		c.ev(event.Text{Step: 2, Delta: "runs."}),
		c.ev(event.Usage{Step: 2, InputTokens: 150, OutputTokens: 5}),
		c.ev(event.TurnEnd{Turn: 1, Steps: 2, StopReason: "completed"}),
		c.ev(event.TurnBegin{Turn: 2}),
		c.ev(event.StepBegin{Turn: 2, Step: 1}),
		c.ev(event.Text{Step: 1, Delta: "The build finished."}),
		c.ev(event.Usage{Step: 1, InputTokens: 200, OutputTokens: 5}),
		c.ev(event.TurnEnd{Turn: 2, Steps: 1, StopReason: "completed"}),
		c.ev(event.Answer{Message: 1, FinalText: "The build finished."}),
		c.ev(event.Result{Status: "success", TerminalReason: "completed", FinalText: "The build finished.", Steps: 3, ToolCalls: 1,
			SessionID: "s-bg", BackgroundTasks: []event.BackgroundTask{{TaskID: "bash-b1234567", Description: "build project",
				Status: "completed", ExitCode: &zero, OutputPath: "/state/tasks/bash-b1234567/output.log"}}}),
	}
}

func init() { scenarios["background"] = backgroundRun }

// TestKimiNotificationBuffering follows the printer cases of Kimi CLI's
// tests/ui_and_conv/test_print_notifications.py on the Kimi sink, where the moment a
// notification comes is set by the test (the binary's own test of the lines is
// run.TestKimiNotificationLines).
func TestKimiNotificationBuffering(t *testing.T) {
	n := taskNotification("n12345678", "task.completed", "Background task completed: build project", "success")
	ended := event.TaskEnded{TaskID: "bash-b1234567", Kind: "bash", Status: "completed", TerminalReason: "completed", Notification: n}
	call := event.ToolCall{Step: 1, ID: "call_123", Name: "Shell", Arguments: json.RawMessage(`{"command": "ls"}`)}
	result := event.ToolResult{Step: 1, ID: "call_123", Name: "Shell", Kimi: &event.KimiToolText{Message: "Command completed"}}
	tests := []struct {
		kimiTest string
		events   []event.Payload
		want     []string // each line's role, or its notification id
	}{
		{"test_json_printer_emits_notification_as_distinct_json_event", []event.Payload{ended}, []string{"n12345678"}},
		{"test_json_printer_preserves_tool_result_when_notification_interleaves",
			[]event.Payload{event.StepBegin{Step: 1}, call, event.Usage{Step: 1}, ended, result}, []string{"assistant", "n12345678", "tool"}},
		{"test_json_printer_buffers_notification_during_tool_call_streaming",
			[]event.Payload{event.StepBegin{Step: 1}, call, ended, event.Usage{Step: 1}, result}, []string{"assistant", "n12345678", "tool"}},
		{"test_json_printer_does_not_split_streamed_assistant_message_for_notification",
			[]event.Payload{event.StepBegin{Step: 1}, event.Text{Step: 1, Delta: "hello"}, ended, event.Text{Step: 1, Delta: " world"},
				event.Usage{Step: 1}, event.TurnEnd{Turn: 1}}, []string{"assistant", "n12345678"}},
		{"test_json_printer_drops_partial_assistant_on_step_retry",
			[]event.Payload{event.StepBegin{Step: 1}, event.Text{Step: 1, Delta: "old"}, call, ended, event.Retry{Step: 1, Attempt: 1},
				event.Text{Step: 1, Delta: "new"}, event.Usage{Step: 1}, event.TurnEnd{Turn: 1}}, []string{"n12345678", "assistant"}},
		// Kimi CLI's print mode stops what is left at its exit without a line.
		{"(kimi-run) a task stopped by the run's end", []event.Payload{event.TaskEnded{TaskID: "bash-b1234567", Status: "killed",
			TerminalReason: "killed", StoppedBy: "run_end", Notification: n}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.kimiTest, func(t *testing.T) {
			c := newClock()
			var stdout, stderr bytes.Buffer
			s := NewKimi(&stdout, &stderr, KimiOptions{})
			for _, p := range tt.events {
				s.Emit(c.ev(p))
			}
			var got []string
			var lines []map[string]any
			for _, l := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
				if l == "" {
					continue
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("not JSON: %q", l)
				}
				lines = append(lines, m)
				if r, ok := m["role"].(string); ok {
					got = append(got, r)
				} else {
					got = append(got, m["id"].(string))
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("lines = %v, want %v\n%s", got, tt.want, stdout.String())
			}
			for _, m := range lines {
				if calls, ok := m["tool_calls"].([]any); ok {
					if args := calls[0].(map[string]any)["function"].(map[string]any)["arguments"]; args != `{"command": "ls"}` {
						t.Errorf("the call's arguments = %v", args)
					}
				}
				if m["role"] == "assistant" && m["content"] != nil && m["tool_calls"] == nil {
					if c := m["content"]; c != "hello world" && c != "new" {
						t.Errorf("assistant content = %v", c)
					}
				}
				if m["role"] == "tool" && m["content"] != "<system>Command completed</system>" {
					t.Errorf("tool content = %v", m["content"])
				}
			}
		})
	}
}

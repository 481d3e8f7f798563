package output

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/event"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// clock hands out event times 250ms apart from a fixed start, so goldens never change.
type clock struct{ t time.Time }

func newClock() *clock {
	return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *clock) ev(data event.Payload) event.Event {
	c.t = c.t.Add(250 * time.Millisecond)
	return event.Event{Time: c.t, Data: data}
}

func (c *clock) sub(parent string, data event.Payload) event.Event {
	e := c.ev(data)
	e.Parent = parent
	return e
}

// scenarios are fixed event sequences that exercise every event type.
var scenarios = map[string]func() []event.Event{
	"success": successRun,
	"failure": failureRun,
}

// successRun is a Ralph iteration with parallel tool calls, a failed tool, a retry, a
// subagent, a todo update, a compaction and a warning, ending in success.
func successRun() []event.Event {
	c := newClock()
	return []event.Event{
		c.ev(event.Init{SchemaVersion: event.SchemaVersion, SessionID: "s-123",
			Model: "kimi-k2", BaseURLHost: "api.moonshot.ai", WorkDir: "/src/app",
			Tools: []string{"Shell", "ReadFile", "Grep", "Agent", "SetTodoList"}}),
		c.ev(event.Iteration{Iteration: 1, Max: 2, Node: "R1"}),
		c.ev(event.TurnBegin{Turn: 1, Iteration: 1, Node: "R1"}),
		c.ev(event.StepBegin{Turn: 1, Step: 1}),
		c.ev(event.Thinking{Step: 1, Delta: "The user wants "}),
		c.ev(event.Thinking{Step: 1, Delta: "green tests."}),
		c.ev(event.Text{Step: 1, Delta: "Let me look."}),
		c.ev(event.ToolCall{Step: 1, ID: "c1", Name: "Shell",
			Arguments: json.RawMessage(`{"command":"go test ./...\n  -run TestParse","timeout":120}`)}),
		c.ev(event.ToolCall{Step: 1, ID: "c2", Name: "ReadFile",
			Arguments: json.RawMessage(`{"path":"main.go"}`)}),
		c.ev(event.Hook{Event: "PreToolUse", Target: "ReadFile", ToolCallID: "c2",
			Command: ".kimi/hooks/guard.sh", ExitCode: 0, DurationMS: 8}),
		c.ev(event.ToolResult{Step: 1, ID: "c2", Name: "ReadFile",
			Output: "package main\n", DurationMS: 3}),
		c.ev(event.Hook{Event: "PreToolUse", Target: "WriteFile", ToolCallID: "c5",
			Command: ".kimi/hooks/guard.sh", ExitCode: 2, DurationMS: 9, Blocked: true,
			Reason: "Editing .env is not allowed.\nUse .env.example."}),
		c.ev(event.ToolResult{Step: 1, ID: "c1", Name: "Shell", IsError: true,
			Output: "\n--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1\nFAIL", DurationMS: 1234}),
		c.ev(event.Usage{Step: 1, InputTokens: 1200, OutputTokens: 80, ContextTokens: 1280}),
		c.ev(event.Retry{Step: 2, Attempt: 1, MaxAttempts: 3, DelayMS: 1500,
			Error: "rate limited: slow down", HTTPStatus: 429}),
		c.ev(event.StepBegin{Turn: 1, Step: 2}),
		c.ev(event.ToolCall{Step: 2, ID: "c3", Name: "Agent",
			Arguments: json.RawMessage(`{"description":"find the parser","prompt":"Where is Parse defined?"}`)}),
		c.sub("c3", event.StepBegin{Turn: 1, Step: 1}),
		c.sub("c3", event.ToolCall{Step: 1, ID: "g1", Name: "Grep",
			Arguments: json.RawMessage(`{"pattern":"func Parse","path":"internal/"}`)}),
		c.sub("c3", event.ToolResult{Step: 1, ID: "g1", Name: "Grep",
			Output: "internal/parse.go", DurationMS: 12}),
		c.sub("c3", event.StepBegin{Turn: 1, Step: 2}),
		c.sub("c3", event.Text{Step: 2, Delta: "In internal/parse.go."}),
		c.ev(event.ToolResult{Step: 2, ID: "c3", Name: "Agent",
			Output: "In internal/parse.go.", DurationMS: 2100}),
		c.ev(event.ToolCall{Step: 2, ID: "c4", Name: "SetTodoList",
			Arguments: json.RawMessage(`{"todos":[{"title":"fix Parse","status":"in_progress"},{"title":"run tests","status":"pending"},{"title":"read failure","status":"done"}]}`)}),
		c.ev(event.Todo{Items: []event.TodoItem{
			{Title: "fix Parse", Status: "in_progress"},
			{Title: "run tests", Status: "pending"},
			{Title: "read failure", Status: "done"},
		}}),
		c.ev(event.ToolResult{Step: 2, ID: "c4", Name: "SetTodoList",
			Output: "Todo list updated", DurationMS: 0}),
		c.ev(event.CompactionBegin{TokensBefore: 120000}),
		c.ev(event.CompactionEnd{TokensBefore: 120000, TokensAfter: 31000}),
		c.ev(event.Warning{Message: "skipped a torn line\nin the session file"}),
		c.ev(event.StepBegin{Turn: 1, Step: 3}),
		c.ev(event.Text{Step: 3, Delta: "Fixed Parse; "}),
		c.ev(event.Text{Step: 3, Delta: "all tests pass.\n\n"}),
		c.ev(event.Usage{Step: 3, InputTokens: 3000, OutputTokens: 40, CachedTokens: 1024,
			ContextTokens: 3040}),
		c.ev(event.TurnEnd{Turn: 1, Iteration: 1, Node: "R1", Steps: 3,
			StopReason: "completed"}),
		// The move into the end node repeats the iteration number, as ralph.Runner does.
		c.ev(event.Iteration{Iteration: 1, Max: 2, Node: "END", Choice: "STOP"}),
		c.ev(event.Result{Status: "success", TerminalReason: "stop",
			FinalText: "Fixed Parse; all tests pass.\n\n", Steps: 3, ToolCalls: 5, Iterations: 1,
			LastChoice: "STOP", Usage: event.UsageTotals{InputTokens: 4200, OutputTokens: 120, CachedTokens: 1024},
			DurationMS: 65432, SessionID: "s-123"}),
		// Nothing may follow the result.
		c.ev(event.Warning{Message: "late warning"}),
	}
}

// failureRun is refused by the provider after one retry.
func failureRun() []event.Event {
	c := newClock()
	return []event.Event{
		c.ev(event.Init{SchemaVersion: event.SchemaVersion, SessionID: "s-9",
			Model: "kimi-k2", BaseURLHost: "api.moonshot.ai", WorkDir: "/src/app", Tools: []string{}}),
		c.ev(event.TurnBegin{Turn: 1}),
		c.ev(event.StepBegin{Turn: 1, Step: 1}),
		c.ev(event.Retry{Step: 1, Attempt: 1, MaxAttempts: 3, DelayMS: 300,
			Error: "connection reset by peer"}),
		c.ev(event.TurnEnd{Turn: 1, Steps: 1, StopReason: "error"}),
		c.ev(event.Result{Status: "error", TerminalReason: "auth", ExitCode: 5,
			Error: &event.ErrorInfo{Kind: "auth", Message: "invalid api key\n(check KIMI_API_KEY)",
				HTTPStatus: 401}, Steps: 1, DurationMS: 412, SessionID: "s-9"}),
	}
}

// golden compares got with testdata/name, or rewrites the file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/tools"
)

// fakeTool records its calls and answers with a fixed text.
type fakeTool struct {
	name  string
	mu    sync.Mutex
	calls []string
	run   func(ctx context.Context, args json.RawMessage) (tools.Result, error)
}

func (f *fakeTool) Name() string        { return f.name }
func (f *fakeTool) Description() string { return "test tool " + f.name }
func (f *fakeTool) Facts() tools.Facts  { return tools.Facts{} }
func (f *fakeTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (f *fakeTool) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	f.mu.Lock()
	f.calls = append(f.calls, string(args))
	f.mu.Unlock()
	if f.run != nil {
		return f.run(ctx, args)
	}
	return tools.Text(f.name + " output"), nil
}

func (f *fakeTool) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// delays is a retry timer that records the waits and does not sleep.
type delays struct {
	mu sync.Mutex
	d  []time.Duration
}

func (d *delays) After(x time.Duration) <-chan time.Time {
	d.mu.Lock()
	d.d = append(d.d, x)
	d.mu.Unlock()
	return agent.NoWait.After(0)
}

type harness struct {
	srv   *scripted.Server
	agent *agent.Agent
	sink  *testkit.Recorder
	timer *delays
	tools map[string]*fakeTool
}

func newHarness(t *testing.T, responses []scripted.Response, toolNames ...string) *harness {
	t.Helper()
	h := &harness{srv: scripted.New(t, responses...), sink: &testkit.Recorder{}, timer: &delays{}, tools: map[string]*fakeTool{}}
	var ts []tools.Tool
	for _, n := range toolNames {
		ft := &fakeTool{name: n}
		h.tools[n] = ft
		ts = append(ts, ft)
	}
	h.agent = &agent.Agent{
		Model:        model.NewOpenAI(model.Config{BaseURL: h.srv.URL(), APIKey: "sk-test", Model: "test-model"}),
		Tools:        ts,
		Sink:         h.sink,
		SystemPrompt: "You are a test.",
		MaxSteps:     100,
		Retry:        agent.RetryPolicy{Attempts: 3, Timer: h.timer},
	}
	return h
}

func (h *harness) turn(t *testing.T, prompt string) (event.TurnOutcome, error) {
	t.Helper()
	return h.agent.Turn(t.Context(), event.TurnSpec{Prompt: prompt})
}

func TestPlainAnswer(t *testing.T) {
	h := newHarness(t, scripted.Scenario(t, "plain"))
	out, err := h.turn(t, "say hello")
	if err != nil {
		t.Fatal(err)
	}
	if out.FinalText != "Hello! The answer is 42." || out.StopReason != event.StopCompleted || out.Steps != 1 {
		t.Fatalf("outcome = %+v", out)
	}
	var streamed strings.Builder
	for _, e := range h.sink.Of(event.TypeText) {
		streamed.WriteString(e.Data.(event.Text).Delta)
	}
	if streamed.String() != out.FinalText {
		t.Errorf("text deltas = %q, want the final text", streamed.String())
	}
	if n := len(h.sink.Of(event.TypeText)); n < 2 {
		t.Errorf("got %d text events; the answer should stream in pieces", n)
	}
	u := h.sink.Of(event.TypeUsage)
	if len(u) != 1 || u[0].Data.(event.Usage).InputTokens == 0 {
		t.Errorf("usage events = %+v", u)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests", len(reqs))
	}
	msgs := reqs[0].Messages()
	if len(msgs) != 2 || msgs[0]["role"] != "system" || msgs[1]["content"] != "say hello" {
		t.Errorf("messages sent = %v", msgs)
	}
	if reqs[0].Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("authorization header missing")
	}
}

func TestToolCallsSequential(t *testing.T) {
	h := newHarness(t, scripted.Scenario(t, "tools-sequential"), "Shell")
	out, err := h.turn(t, "list files")
	if err != nil {
		t.Fatal(err)
	}
	if out.Steps != 2 || out.ToolCalls != 1 || !strings.Contains(out.FinalText, "go.mod") {
		t.Fatalf("outcome = %+v", out)
	}
	if got := h.tools["Shell"].got(); len(got) != 1 || got[0] != `{"command":"ls"}` {
		t.Errorf("Shell calls = %q", got)
	}
	msgs := h.srv.Requests()[1].Messages()
	last := msgs[len(msgs)-1]
	if last["role"] != "tool" || last["content"] != "Shell output" || last["tool_call_id"] == "" {
		t.Errorf("tool result sent back = %v", last)
	}
	prev := msgs[len(msgs)-2]
	if prev["role"] != "assistant" || prev["tool_calls"] == nil {
		t.Errorf("assistant message sent back = %v", prev)
	}
}

func TestToolCallsParallelRunConcurrently(t *testing.T) {
	h := newHarness(t, scripted.Scenario(t, "tools-parallel"), "ReadFile", "Shell")
	// Each tool waits until both have started: a sequential loop would never get there.
	var started sync.WaitGroup
	started.Add(2)
	both := make(chan struct{})
	go func() { started.Wait(); close(both) }()
	waitBoth := func() bool {
		select {
		case <-both:
			return true
		case <-time.After(10 * time.Second):
			return false
		}
	}
	h.tools["Shell"].run = func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		started.Done()
		if !waitBoth() {
			return tools.Errorf("the other call never started"), nil
		}
		return tools.Text("shell ok"), nil
	}
	// ReadFile, called first, finishes last: only once Shell's result is out.
	h.tools["ReadFile"].run = func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		started.Done()
		if !waitBoth() {
			return tools.Errorf("the other call never started"), nil
		}
		wait, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if _, ok := h.sink.WaitFor(wait, func(e event.Event) bool {
			r, ok := e.Data.(event.ToolResult)
			return ok && r.Name == "Shell"
		}); !ok {
			return tools.Errorf("Shell never finished"), nil
		}
		return tools.Text("read ok"), nil
	}
	out, err := h.turn(t, "read and test")
	if err != nil {
		t.Fatal(err)
	}
	if out.ToolCalls != 2 {
		t.Fatalf("tool calls = %d", out.ToolCalls)
	}
	var finished []string
	for _, e := range h.sink.Of(event.TypeToolResult) {
		r := e.Data.(event.ToolResult)
		if r.IsError {
			t.Errorf("%s: %s", r.Name, r.Output)
		}
		finished = append(finished, r.Name)
	}
	if want := []string{"Shell", "ReadFile"}; !slices.Equal(finished, want) {
		t.Fatalf("tool_result events in order %q, want %q (the order they finished in)", finished, want)
	}
	// Results go back in call order whatever order they finished in: each tool message
	// answers the call at its position in the assistant message.
	calls := h.sink.Of(event.TypeToolCall)
	if len(calls) != 2 || calls[0].Data.(event.ToolCall).Name != "ReadFile" {
		t.Fatalf("tool_call events = %+v", calls)
	}
	msgs := h.srv.Requests()[1].Messages()
	if len(msgs) < 3 {
		t.Fatalf("request 2 has %d messages", len(msgs))
	}
	assistant, results := msgs[len(msgs)-3], msgs[len(msgs)-2:]
	tc, _ := assistant["tool_calls"].([]any)
	if len(tc) != 2 {
		t.Fatalf("assistant message sent back = %v", assistant)
	}
	var order, contents []string
	for i, m := range results {
		call := tc[i].(map[string]any)
		name := call["function"].(map[string]any)["name"].(string)
		if m["role"] != "tool" || m["tool_call_id"] != call["id"] {
			t.Errorf("message %d answers %v, want the %s call %v", i+1, m["tool_call_id"], name, call["id"])
		}
		content, _ := m["content"].(string)
		order, contents = append(order, name), append(contents, content)
	}
	if want := []string{"ReadFile", "Shell"}; !slices.Equal(order, want) {
		t.Errorf("tool results sent back in order %q, want %q (the call order)", order, want)
	}
	if want := []string{"read ok", "shell ok"}; !slices.Equal(contents, want) {
		t.Errorf("tool results = %q, want %q", contents, want)
	}
}

func TestToolCallsSplitAndIndexless(t *testing.T) {
	h := newHarness(t, scripted.Scenario(t, "tools-split-indexless"), "ReadFile", "Shell", "WriteFile")
	out, err := h.turn(t, "quirky server")
	if err != nil {
		t.Fatal(err)
	}
	if out.Steps != 3 {
		t.Fatalf("steps = %d, want 3", out.Steps)
	}
	if got := h.tools["ReadFile"].got(); len(got) != 1 || got[0] != `{"path":"notes/todo.txt"}` {
		t.Errorf("ReadFile calls = %q", got)
	}
	if got := h.tools["Shell"].got(); len(got) != 2 || got[0] != `{"command":"wc -l notes/todo.txt"}` {
		t.Errorf("Shell calls = %q", got)
	}
	var all []string
	for _, ft := range h.tools {
		all = append(all, ft.got()...)
	}
	if len(all) != 4 {
		t.Errorf("ran %d calls in all, want 4: %q", len(all), all)
	}
	for _, e := range h.sink.Of(event.TypeToolResult) {
		if r := e.Data.(event.ToolResult); r.IsError {
			t.Errorf("%s failed: %s", r.Name, r.Output)
		}
	}
}

func TestReasoningSentBackWithToolCalls(t *testing.T) {
	h := newHarness(t, scripted.Scenario(t, "reasoning"), "Shell")
	if _, err := h.turn(t, "is the tree clean?"); err != nil {
		t.Fatal(err)
	}
	if len(h.sink.Of(event.TypeThinking)) == 0 {
		t.Error("no thinking events")
	}
	msgs := h.srv.Requests()[1].Messages()
	var assistant map[string]any
	for _, m := range msgs {
		if m["role"] == "assistant" {
			assistant = m
		}
	}
	if r, _ := assistant["reasoning_content"].(string); !strings.HasPrefix(r, "The user wants") {
		t.Errorf("reasoning_content sent back = %q", r)
	}
}

func TestBadToolCallsBecomeErrorResults(t *testing.T) {
	h := newHarness(t, []scripted.Response{
		scripted.ToolCalls(
			scripted.Call("NoSuchTool", `{}`),
			scripted.Call("Shell", `{"command": "ls"`),
			scripted.Call("Boom", `{}`),
			scripted.Call("Shell", `[1,2]`),
		),
		scripted.Text("recovered"),
	}, "Shell", "Boom")
	h.srv.AllowUnknownTools()
	h.tools["Boom"].run = func(context.Context, json.RawMessage) (tools.Result, error) { panic("kaboom") }
	out, err := h.turn(t, "go")
	if err != nil {
		t.Fatal(err)
	}
	if out.FinalText != "recovered" {
		t.Errorf("final = %q", out.FinalText)
	}
	results := h.sink.Of(event.TypeToolResult)
	if len(results) != 4 {
		t.Fatalf("got %d results", len(results))
	}
	want := map[string]string{"NoSuchTool": "no tool named", "Boom": "crashed: kaboom"}
	for _, e := range results {
		r := e.Data.(event.ToolResult)
		if !r.IsError {
			t.Errorf("%s: not an error: %s", r.Name, r.Output)
		}
		if w, ok := want[r.Name]; ok && !strings.Contains(r.Output, w) {
			t.Errorf("%s output = %q, want %q", r.Name, r.Output, w)
		}
		if r.Name == "Shell" && !strings.Contains(r.Output, "not a JSON object") {
			t.Errorf("Shell output = %q", r.Output)
		}
	}
	if got := h.tools["Shell"].got(); len(got) != 0 {
		t.Errorf("Shell ran with bad arguments: %q", got)
	}
	// The history sent back must stay valid for strict providers: bad arguments become {}.
	for _, m := range h.srv.Requests()[1].Messages() {
		for _, c := range asSlice(m["tool_calls"]) {
			args := c.(map[string]any)["function"].(map[string]any)["arguments"].(string)
			if !json.Valid([]byte(args)) {
				t.Errorf("invalid arguments sent back: %q", args)
			}
		}
	}
	// The tool_call event of a malformed call still carries valid JSON.
	for _, e := range h.sink.Of(event.TypeToolCall) {
		if !json.Valid(e.Data.(event.ToolCall).Arguments) {
			t.Errorf("tool_call event arguments not JSON: %s", e.Data.(event.ToolCall).Arguments)
		}
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// An agent given no step limit refuses the turn instead of running without a bound: the
// limit is a setting (config.DefaultMaxSteps), the agent has no default of its own.
func TestNoStepLimitIsAnError(t *testing.T) {
	h := newHarness(t, []scripted.Response{scripted.Text("hi")})
	h.agent.MaxSteps = 0
	if _, err := h.turn(t, "go"); err == nil || !strings.Contains(err.Error(), "no step limit") {
		t.Errorf("err = %v, want the missing step limit", err)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d model calls without a step limit", n)
	}
}

func TestMaxSteps(t *testing.T) {
	h := newHarness(t, []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{"command":"ls"}`)).Forever()}, "Shell")
	h.agent.MaxSteps = 4
	out, err := h.turn(t, "loop")
	if err != nil {
		t.Fatal(err)
	}
	if out.StopReason != event.StopMaxSteps || out.Steps != 4 || len(h.srv.Requests()) != 4 {
		t.Errorf("outcome = %+v after %d requests", out, len(h.srv.Requests()))
	}
}

func TestToolGoErrorStopsTheRun(t *testing.T) {
	h := newHarness(t, []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{}`)), scripted.Text("never")}, "Shell")
	boom := errors.New("disk on fire")
	h.tools["Shell"].run = func(context.Context, json.RawMessage) (tools.Result, error) { return tools.Result{}, boom }
	_, err := h.turn(t, "go")
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if len(h.srv.Requests()) != 1 {
		t.Errorf("the run went on after a tool's Go error")
	}
}

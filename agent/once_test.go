package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/session"
	"github.com/kimi-run/kimi-run/tools"
)

// sessionRecords returns the records of a context file, one JSON object each.
func sessionRecords(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("record %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// savedCalls lists the tool call ids of the saved assistant messages, and savedResults the
// ids the saved tool results answer.
func savedCalls(recs []map[string]any) (calls, results []string) {
	for _, r := range recs {
		switch r["role"] {
		case "assistant":
			tc, _ := r["tool_calls"].([]any)
			for _, c := range tc {
				calls = append(calls, c.(map[string]any)["id"].(string))
			}
		case "tool":
			results = append(results, r["tool_call_id"].(string))
		}
	}
	return calls, results
}

// TestNoCallStartsBeforeItIsSaved holds the first half of "exactly once" (issue 25 #1): when
// any tool call of a reply starts, the assistant message with every call of the reply is in
// the session already; and a call's result is in the session before its tool_result event.
// (A call still running at a kill is then in the file, and a resume answers it as
// interrupted instead of asking the model for the step again.)
func TestNoCallStartsBeforeItIsSaved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context.jsonl")
	store, err := session.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	h := newHarness(t, []scripted.Response{
		scripted.ToolCalls(scripted.CallID("a", "Probe", `{}`), scripted.CallID("b", "Probe", `{"n":2}`), scripted.CallID("c", "Probe", `{"n":3}`)),
		scripted.Text("done"),
	}, "Probe")
	h.agent.Session = store
	var mu sync.Mutex
	var problems []string
	h.tools["Probe"].run = func(context.Context, json.RawMessage) (tools.Result, error) {
		calls, _ := savedCalls(sessionRecords(t, path))
		if strings.Join(calls, ",") != "a,b,c" {
			mu.Lock()
			problems = append(problems, "a call started with the saved calls "+strings.Join(calls, ","))
			mu.Unlock()
		}
		return tools.Text("probed"), nil
	}
	h.agent.Sink = event.SinkFunc(func(e event.Event) {
		if r, ok := e.Data.(event.ToolResult); ok {
			_, results := savedCalls(sessionRecords(t, path))
			if !strings.Contains(","+strings.Join(results, ",")+",", ","+r.ID+",") {
				mu.Lock()
				problems = append(problems, "tool_result "+r.ID+" came before its result was saved")
				mu.Unlock()
			}
		}
	})
	if _, err := h.turn(t, "probe"); err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestResultsSavedAsTheyEnd: a reply's fast call saves its result while a slow one still
// runs (a kill then loses only the slow one's), and the next request still gets the results
// in call order.
func TestResultsSavedAsTheyEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context.jsonl")
	store, err := session.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	h := newHarness(t, []scripted.Response{
		scripted.ToolCalls(scripted.CallID("slow", "Wait", `{}`), scripted.CallID("fast", "Quick", `{}`)),
		scripted.Text("done"),
	}, "Wait", "Quick")
	h.agent.Session = store
	quickSaved := make(chan struct{})
	var savedWhileSlowRan bool
	h.tools["Wait"].run = func(context.Context, json.RawMessage) (tools.Result, error) {
		<-quickSaved
		_, results := savedCalls(sessionRecords(t, path))
		savedWhileSlowRan = strings.Join(results, ",") == "fast"
		return tools.Text("slow output"), nil
	}
	h.agent.Sink = event.SinkFunc(func(e event.Event) {
		if r, ok := e.Data.(event.ToolResult); ok && r.ID == "fast" {
			close(quickSaved)
		}
	})
	if _, err := h.turn(t, "go"); err != nil {
		t.Fatal(err)
	}
	if !savedWhileSlowRan {
		t.Error("the fast call's result was not saved while the slow call ran")
	}
	var ids []string
	for _, m := range h.srv.Requests()[1].MessagesOf("tool") {
		ids = append(ids, m["tool_call_id"].(string))
	}
	if strings.Join(ids, ",") != "slow,fast" {
		t.Errorf("the next request's results are in the order %v, want call order", ids)
	}
	r, err := session.Read(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	var restored []string
	for _, m := range r.Messages {
		if m.Role == "tool" {
			restored = append(restored, m.ToolCallID)
		}
	}
	if strings.Join(restored, ",") != "slow,fast" {
		t.Errorf("a restore gives the results in the order %v, want call order", restored)
	}
}

// TestBrokenReplyIsRetriedWithoutRunningItsCalls: a stream that breaks after a complete tool
// call is retried, and nothing of the broken reply ran: no call starts before its reply is
// complete and saved.
func TestBrokenReplyIsRetriedWithoutRunningItsCalls(t *testing.T) {
	h := newHarness(t, []scripted.Response{
		scripted.Reply(scripted.CallID("a", "Probe", `{"n":1}`), scripted.CallID("b", "Probe", `{"n":2}`), scripted.Cut()),
		scripted.ToolCalls(scripted.CallID("a", "Probe", `{"n":1}`), scripted.CallID("b", "Probe", `{"n":2}`)),
		scripted.Text("done"),
	}, "Probe")
	if _, err := h.turn(t, "probe"); err != nil {
		t.Fatal(err)
	}
	if got := h.tools["Probe"].calls; len(got) != 2 {
		t.Errorf("Probe ran %d times (%v), want once per call of the complete reply", len(got), got)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Errorf("%d requests, want the broken one retried: 3", n)
	}
}

// TestSubagentCallsAreSaved: a subagent's conversation is saved beside its parent's, by the
// same rules; a restore that finds the Agent call without a result tells the model what the
// subagent had done.
func TestSubagentCallsAreSaved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "context.jsonl")
	store, err := session.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	h := newHarness(t, []scripted.Response{
		scripted.ToolCalls(scripted.CallID("task:1", "Agent", `{"description":"sub","prompt":"do it"}`)),
		scripted.ToolCalls(scripted.CallID("s1", "Probe", `{"n":1}`)),
		scripted.ToolCalls(scripted.CallID("s2", "Probe", `{"n":2}`)),
	}, "Probe")
	h.agent.Session = store
	stop := make(chan struct{})
	h.tools["Probe"].run = func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		if string(args) == `{"n":2}` {
			close(stop)
			<-ctx.Done()
		}
		return tools.Text("probed " + string(args)), nil
	}
	subs := &agent.Subagents{Parent: h.agent, Kinds: map[string]agent.SubagentKind{"coder": {Tools: []tools.Tool{h.tools["Probe"]}}}}
	h.agent.Tools = append(h.agent.Tools, tools.NewAgent(tools.Env{Subagent: subs}))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.agent.Turn(ctx, event.TurnSpec{Prompt: "delegate"})
	}()
	<-stop
	// What a kill leaves: the files as they are now (copied before the run goes on).
	killed := t.TempDir()
	copyTree(t, dir, killed)
	cancel()
	<-done

	sub := sessionRecords(t, filepath.Join(killed, "subagents", "task_1", "context.jsonl"))
	calls, results := savedCalls(sub)
	if strings.Join(calls, ",") != "s1,s2" || strings.Join(results, ",") != "s1" {
		t.Errorf("the subagent's file holds calls %v and results %v, want s1,s2 and s1", calls, results)
	}
	r, err := session.Read(t.Context(), filepath.Join(killed, "context.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	last := r.Messages[len(r.Messages)-1]
	for _, want := range []string{"interrupted", `Probe {"n":1}: result saved: probed {"n":1}`, `Probe {"n":2}: interrupted`} {
		if !strings.Contains(last.Content, want) {
			t.Errorf("the Agent call's restored result lacks %q:\n%s", want, last.Content)
		}
	}
}

// copyTree copies the regular files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

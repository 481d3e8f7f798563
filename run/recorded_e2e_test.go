package run_test

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// replay runs the binary in stream-json mode against a provider recording (see scriptedFrom).
func replay(t *testing.T, script []scripted.Response, args ...string) (*scripted.Server, result, []map[string]any) {
	t.Helper()
	srv := recorded(t, script...)
	r := kimi(t, srv, invocation{args: append([]string{"--output-format", "stream-json", "-p", "go"}, args...), srv: srv})
	return srv, r, events(t, r.stdout)
}

// sentAssistant returns the assistant messages of request i.
func sentAssistant(t *testing.T, srv *scripted.Server, i int) []map[string]any {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) <= i {
		t.Fatalf("%d requests, want more than %d", len(reqs), i)
	}
	return reqs[i].MessagesOf("assistant")
}

func usageTotals(t *testing.T, r result) map[string]any {
	t.Helper()
	u, _ := lastResult(t, r)["usage"].(map[string]any)
	return u
}

// Moonshot: usage only inside the finishing choice (moonpalace's recorded stream, then a
// kimi-k2.5 reply in the shape issue 16 quotes) is in every usage event and the result.
func TestReplayMoonshot(t *testing.T) {
	t.Parallel()
	_, r, evs := replay(t, recording(t, "moonshot-choice-usage"))
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	u := usageTotals(t, r)
	if u["input_tokens"] != 158.0 || u["output_tokens"] != 31.0 || u["cached_tokens"] != 8.0 || u["reasoning_tokens"] != 1.0 {
		t.Errorf("result usage = %v", u)
	}
	steps := testkit.OfType(evs, "usage")
	if len(steps) != 2 || steps[0]["input_tokens"] != 146.0 || steps[0]["output_tokens"] != 26.0 || steps[1]["reasoning_tokens"] != 1.0 {
		t.Errorf("usage events = %v", steps)
	}
	if !strings.HasPrefix(r.stdout, "{") || lastResult(t, r)["final_text"] != "Context caching reuses a stored prompt prefix." {
		t.Errorf("final text = %v", lastResult(t, r)["final_text"])
	}
}

// Groq (recorded): the stream error is retried with its message, the tool call's result
// goes back with the reasoning in Groq's own field, and x_groq usage is counted.
func TestReplayGroq(t *testing.T) {
	t.Parallel()
	srv, r, evs := replay(t, recording(t, "groq-tool-call"))
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	retries := testkit.OfType(evs, "retry")
	if len(retries) != 1 || !strings.Contains(retries[0]["error"].(string), "tool call validation failed") {
		t.Errorf("retry events = %v", retries)
	}
	u := usageTotals(t, r)
	if u["input_tokens"] != 643.0 || u["output_tokens"] != 107.0 || u["reasoning_tokens"] != 61.0 {
		t.Errorf("result usage = %v", u)
	}
	sent := sentAssistant(t, srv, 2)
	if len(sent) != 1 || sent[0]["reasoning"] == nil || sent[0]["reasoning_content"] != nil {
		t.Errorf("assistant message sent back = %v", sent)
	}
	var tool map[string]any
	for _, m := range srv.Requests()[2].Messages() {
		if m["role"] == "tool" {
			tool = m
		}
	}
	if tool == nil || tool["tool_call_id"] != "fc_bfb39741-3748-4def-9886-a93fc9c64a90" {
		t.Errorf("tool result sent back = %v", tool)
	}
	if n := len(testkit.OfType(evs, "thinking")); n == 0 {
		t.Errorf("no thinking events for Groq's reasoning")
	}
}

// OpenRouter: thinking shown from reasoning/reasoning_details, the details sent back as
// received on the next request, reasoning tokens in the result.
func TestReplayOpenRouterReasoning(t *testing.T) {
	t.Parallel()
	srv, r, evs := replay(t, recording(t, "openrouter-reasoning-tools"))
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	var thought strings.Builder
	for _, e := range testkit.OfType(evs, "thinking") {
		thought.WriteString(e["delta"].(string))
	}
	if !strings.Contains(thought.String(), "I will check with the shell.") || !strings.Contains(thought.String(), "2+2 equals 4.") {
		t.Errorf("thinking = %q", thought.String())
	}
	sent := sentAssistant(t, srv, 1)
	details, _ := sent[0]["reasoning_details"].([]any)
	if len(details) != 1 || details[0].(map[string]any)["text"] != "The user wants 2+2. I will check with the shell." {
		t.Errorf("reasoning_details sent back = %v", sent[0]["reasoning_details"])
	}
	if u := usageTotals(t, r); u["reasoning_tokens"] != 55.0 || u["input_tokens"] != 63.0 {
		t.Errorf("result usage = %v", u)
	}
	if lastResult(t, r)["final_text"] != "2 + 2 = 4" {
		t.Errorf("final text = %v", lastResult(t, r)["final_text"])
	}
}

// OpenRouter's recorded 429: what the upstream said reaches the retry events, the result
// and the stderr line, not only "Provider returned error".
func TestReplayOpenRouter429(t *testing.T) {
	t.Parallel()
	const detail = "Google: google/gemini-2.0-flash-exp:free is temporarily rate-limited upstream"
	rs := recording(t, "openrouter-429")
	srv, r, evs := replay(t, []scripted.Response{rs[0].Forever()})
	if r.code != 75 || len(srv.Requests()) != 3 {
		t.Fatalf("exit = %d after %d requests\n%s", r.code, len(srv.Requests()), r.stderr)
	}
	for _, e := range testkit.OfType(evs, "retry") {
		if !strings.Contains(e["error"].(string), detail) {
			t.Errorf("retry event = %v", e)
		}
	}
	e, _ := lastResult(t, r)["error"].(map[string]any)
	if msg, _ := e["message"].(string); !strings.Contains(msg, detail) {
		t.Errorf("result error = %v", e)
	}
	if !strings.Contains(r.stderr, detail) {
		t.Errorf("stderr lacks the upstream's words:\n%s", r.stderr)
	}
}

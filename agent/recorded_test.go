package agent_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
)

// recording loads a provider recording from testdata/providers (see its README for the
// sources): real responses replayed over loopback HTTP by the scripted server.
func recording(t *testing.T, name string) []scripted.Response {
	t.Helper()
	return scripted.Load(t, filepath.Join("..", "testdata", "providers", name+".txtar"))
}

func usages(h *harness) []event.Usage {
	var out []event.Usage
	for _, e := range h.sink.Of(event.TypeUsage) {
		out = append(out, e.Data.(event.Usage))
	}
	return out
}

func thinkingText(h *harness) string {
	var b strings.Builder
	for _, e := range h.sink.Of(event.TypeThinking) {
		b.WriteString(e.Data.(event.Thinking).Delta)
	}
	return b.String()
}

// assistantSent returns the assistant messages of request i as the server received them.
func assistantSent(t *testing.T, h *harness, i int) []map[string]any {
	t.Helper()
	reqs := h.srv.Requests()
	if len(reqs) <= i {
		t.Fatalf("%d requests, want more than %d", len(reqs), i)
	}
	return reqs[i].MessagesOf("assistant")
}

// Moonshot (moonpalace's recorded moonshot-v1-128k stream, then a kimi-k2.5 reply in the
// shape issue 16 quotes): usage only inside the finishing choice is read, choice 0's and
// not the second choice's, and cached and reasoning tokens come from Moonshot's fields.
func TestRecordedMoonshotUsageInChoice(t *testing.T) {
	h := newHarness(t, recording(t, "moonshot-choice-usage"), "search")
	out, err := h.turn(t, "what is context caching")
	if err != nil {
		t.Fatal(err)
	}
	want := []event.Usage{
		{Step: 1, InputTokens: 146, OutputTokens: 26, ContextTokens: 172},
		{Step: 2, InputTokens: 12, OutputTokens: 5, CachedTokens: 8, ReasoningTokens: 1, ContextTokens: 17},
	}
	if got := usages(h); !reflect.DeepEqual(got, want) {
		t.Errorf("usage events = %+v\nwant %+v", got, want)
	}
	if out.FinalText != "Context caching reuses a stored prompt prefix." {
		t.Errorf("final text = %q", out.FinalText)
	}
	if got := thinkingText(h); got != "The search tool failed; answer from memory." {
		t.Errorf("thinking = %q", got)
	}
	// The recorded arguments are not JSON: the call is answered with an error and goes
	// back as {} under its recorded id.
	if n := len(h.tools["search"].got()); n != 0 {
		t.Errorf("search ran %d times with arguments that are not JSON", n)
	}
	sent := assistantSent(t, h, 1)
	calls, _ := sent[0]["tool_calls"].([]any)
	if len(calls) != 1 {
		t.Fatalf("assistant message sent back = %v", sent[0])
	}
	call := calls[0].(map[string]any)
	fn := call["function"].(map[string]any)
	if call["id"] != "search:0" || fn["name"] != "search" || fn["arguments"] != "{}" {
		t.Errorf("tool call sent back = %v", call)
	}
}

// OpenRouter: reasoning arrives as delta.reasoning beside delta.reasoning_details; it is
// shown once as thinking, and the details go back merged, in their own field, exactly as
// the provider sent them (the recorded Claude reply's signature included).
func TestRecordedOpenRouterReasoningDetails(t *testing.T) {
	h := newHarness(t, append(recording(t, "openrouter-reasoning-tools"), scripted.Text("ok")), "Shell")
	out, err := h.turn(t, "what is 2+2")
	if err != nil {
		t.Fatal(err)
	}
	if out.FinalText != "2 + 2 = 4" || out.Steps != 2 {
		t.Fatalf("outcome = %+v", out)
	}
	if got := h.tools["Shell"].got(); len(got) != 1 || got[0] != `{"command":"echo $((2+2))"}` {
		t.Errorf("Shell calls = %v", got)
	}
	if got, want := thinkingText(h), "The user wants 2+2. I will check with the shell.This is a simple arithmetic question. 2+2 equals 4."; got != want {
		t.Errorf("thinking = %q, want %q", got, want)
	}
	want := []event.Usage{
		{Step: 1, InputTokens: 20, OutputTokens: 48, ReasoningTokens: 42, ContextTokens: 68},
		{Step: 2, InputTokens: 43, OutputTokens: 36, ReasoningTokens: 13, ContextTokens: 79},
	}
	if got := usages(h); !reflect.DeepEqual(got, want) {
		t.Errorf("usage events = %+v\nwant %+v", got, want)
	}
	sent := assistantSent(t, h, 1)[0]
	if _, ok := sent["reasoning_content"]; ok {
		t.Errorf("reasoning_content sent to OpenRouter: %v", sent)
	}
	wantDetails := []any{map[string]any{"type": "reasoning.text", "text": "The user wants 2+2. I will check with the shell.", "format": "unknown", "index": 0.0}}
	if !reflect.DeepEqual(sent["reasoning_details"], wantDetails) {
		t.Errorf("reasoning_details sent back = %#v\nwant %#v", sent["reasoning_details"], wantDetails)
	}

	// The recorded answer's details (text in pieces, then a fragment with only the
	// signature) go back on the next turn as one block.
	if _, err := h.turn(t, "thanks"); err != nil {
		t.Fatal(err)
	}
	final := assistantSent(t, h, 2)[1]
	blocks, _ := final["reasoning_details"].([]any)
	if len(blocks) != 1 {
		t.Fatalf("reasoning_details of the answer = %v", final["reasoning_details"])
	}
	b := blocks[0].(map[string]any)
	sig, _ := b["signature"].(string)
	if b["text"] != "This is a simple arithmetic question. 2+2 equals 4." || !strings.HasPrefix(sig, "Et0BCkgIChACGAIqQA2s7h7t") || b["format"] != "anthropic-claude-v1" {
		t.Errorf("answer's reasoning block sent back = %v", b)
	}
}

// Groq (recorded gpt-oss-120b): an error object inside a 200 stream is retried with its
// message in the retry event; the tool call arrives in one delta; usage under x_groq is
// read; the reasoning goes back as "reasoning", the field Groq sent it in.
func TestRecordedGroqToolCall(t *testing.T) {
	h := newHarness(t, recording(t, "groq-tool-call"), "get_something_by_name")
	out, err := h.turn(t, "call the tool")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.srv.Requests()) != 3 || out.Steps != 2 {
		t.Fatalf("%d requests, outcome %+v", len(h.srv.Requests()), out)
	}
	retries := h.sink.Of(event.TypeRetry)
	if len(retries) != 1 || !strings.Contains(retries[0].Data.(event.Retry).Error, "Tool call validation failed") {
		t.Errorf("retry events = %+v", retries)
	}
	if got := h.tools["get_something_by_name"].got(); len(got) != 1 || got[0] != `{"name":"example"}` {
		t.Errorf("tool calls = %v", got)
	}
	want := []event.Usage{
		{Step: 1, InputTokens: 304, OutputTokens: 49, ReasoningTokens: 23, ContextTokens: 353},
		{Step: 2, InputTokens: 339, OutputTokens: 58, ReasoningTokens: 38, ContextTokens: 397},
	}
	if got := usages(h); !reflect.DeepEqual(got, want) {
		t.Errorf("usage events = %+v\nwant %+v", got, want)
	}
	sent := assistantSent(t, h, 2)[0]
	calls, _ := sent["tool_calls"].([]any)
	if len(calls) != 1 || calls[0].(map[string]any)["id"] != "fc_bfb39741-3748-4def-9886-a93fc9c64a90" {
		t.Errorf("tool calls sent back = %v", sent["tool_calls"])
	}
	reasoning, _ := sent["reasoning"].(string)
	if !strings.HasPrefix(reasoning, "We need to call the function with correct parameter") {
		t.Errorf("reasoning sent back = %q", reasoning)
	}
	if _, ok := sent["reasoning_content"]; ok {
		t.Errorf("reasoning_content sent to Groq, which calls it reasoning: %v", sent)
	}
}

// OpenRouter's 429 (recorded): the retry events and the final error carry the upstream
// provider's name and words from error.metadata, not only "Provider returned error".
func TestRecordedOpenRouter429Detail(t *testing.T) {
	rs := recording(t, "openrouter-429")
	h := newHarness(t, []scripted.Response{rs[0].Forever()})
	_, err := h.turn(t, "tell me a joke")
	const detail = "Google: google/gemini-2.0-flash-exp:free is temporarily rate-limited upstream"
	if err == nil || !strings.Contains(err.Error(), detail) || !strings.Contains(err.Error(), "Provider returned error") {
		t.Fatalf("error = %v", err)
	}
	retries := h.sink.Of(event.TypeRetry)
	if len(retries) != 2 {
		t.Fatalf("%d retry events, want 2", len(retries))
	}
	for _, r := range retries {
		if ev := r.Data.(event.Retry); !strings.Contains(ev.Error, detail) || ev.HTTPStatus != 429 {
			t.Errorf("retry event = %+v", ev)
		}
	}
}

// Quota exhaustion (documented shapes of Moonshot and OpenAI) is not a rate limit: one
// attempt, no retry event, and an error that says Quota.
func TestQuotaIsNotRetried(t *testing.T) {
	for i, r := range recording(t, "quota-429") {
		h := newHarness(t, []scripted.Response{r.Forever()})
		_, err := h.turn(t, "hi")
		var pe *model.ProviderError
		if !errors.As(err, &pe) || !pe.Quota() || model.Retryable(err) {
			t.Errorf("response %d: error = %v", i+1, err)
		}
		if n := len(h.srv.Requests()); n != 1 {
			t.Errorf("response %d: %d requests, want 1", i+1, n)
		}
		if n := len(h.sink.Of(event.TypeRetry)); n != 0 {
			t.Errorf("response %d: %d retry events", i+1, n)
		}
	}
}

// The request sent after a reply whose reasoning came in the plain reasoning field has no
// reasoning_details and no reasoning_content.
func TestReasoningFieldRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		think scripted.Part
		field string
	}{
		{"reasoning_content", scripted.Think("weighing it"), "reasoning_content"},
		{"reasoning", scripted.ReasonPlain("weighing it"), "reasoning"},
		{"reasoning_details", scripted.Reason("weighing it"), "reasoning_details"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, []scripted.Response{
				scripted.Reply(tt.think, scripted.Call("Shell", `{"command":"true"}`)),
				scripted.Text("done"),
			}, "Shell")
			if _, err := h.turn(t, "go"); err != nil {
				t.Fatal(err)
			}
			if got := thinkingText(h); got != "weighing it" {
				t.Errorf("thinking = %q", got)
			}
			sent := assistantSent(t, h, 1)[0]
			for _, f := range []string{"reasoning_content", "reasoning", "reasoning_details"} {
				_, ok := sent[f]
				if ok != (f == tt.field) {
					t.Errorf("field %s sent = %v, want only %s: %v", f, ok, tt.field, sent)
				}
			}
		})
	}
}

// Every usage shape counts, and reasoning tokens are reported.
func TestUsageShapes(t *testing.T) {
	tests := []struct {
		name  string
		parts []scripted.Part
		want  event.Usage
	}{
		{"top-level usage chunk", []scripted.Part{scripted.Usage(300, 40, 100)},
			event.Usage{Step: 1, InputTokens: 300, OutputTokens: 40, CachedTokens: 100, ContextTokens: 340}},
		{"inside the finishing choice, cached at the top of usage", []scripted.Part{scripted.UsageInChoice(), scripted.Usage(300, 40, 100), scripted.ReasoningTokens(7)},
			event.Usage{Step: 1, InputTokens: 300, OutputTokens: 40, CachedTokens: 100, ReasoningTokens: 7, ContextTokens: 340}},
		{"under x_groq", []scripted.Part{scripted.UsageXGroq(), scripted.Usage(300, 40, 0)},
			event.Usage{Step: 1, InputTokens: 300, OutputTokens: 40, ContextTokens: 340}},
		{"none", []scripted.Part{scripted.NoUsage()}, event.Usage{Step: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, []scripted.Response{scripted.Reply(append(tt.parts, scripted.Say("fine"))...)})
			if _, err := h.turn(t, "hi"); err != nil {
				t.Fatal(err)
			}
			if got := usages(h); len(got) != 1 || got[0] != tt.want {
				t.Errorf("usage = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// A finish_reason other than stop, tool_calls or length is not an answer and not worth
// another attempt.
func TestUnknownFinishReason(t *testing.T) {
	for _, reason := range []string{"content_filter", "insufficient_system_resource", "error_sensitive"} {
		t.Run(reason, func(t *testing.T) {
			h := newHarness(t, []scripted.Response{scripted.Reply(scripted.Say("the answer is"), scripted.Finish(reason)).Forever()})
			_, err := h.turn(t, "hi")
			var fe *model.FinishError
			if !errors.As(err, &fe) || fe.Reason != reason || model.Retryable(err) {
				t.Fatalf("error = %v", err)
			}
			if n := len(h.srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

// OpenRouter's finish_reason "error" marks an upstream failure mid-stream: retried like a
// cut stream, not taken as a filtered answer.
func TestFinishReasonErrorIsRetried(t *testing.T) {
	h := newHarness(t, []scripted.Response{
		scripted.Reply(scripted.Say("par"), scripted.Finish("error")),
		scripted.Text("whole"),
	})
	out, err := h.turn(t, "hi")
	if err != nil || out.FinalText != "whole" || len(h.sink.Of(event.TypeRetry)) != 1 {
		t.Fatalf("outcome %+v, error %v, retries %d", out, err, len(h.sink.Of(event.TypeRetry)))
	}
}

// HTTP 501 is not retried (Kimi CLI retries 429, 500, 502, 503 and 504 only:
// /work/shared/reference/kimi-cli.md, "Retry"); 500 still is.
func TestStatusRetried(t *testing.T) {
	for _, tt := range []struct {
		code     int
		requests int
	}{{501, 1}, {500, 3}, {503, 3}} {
		h := newHarness(t, []scripted.Response{scripted.Status(tt.code, scripted.ErrorBody("server_error", "nope")).Forever()})
		if _, err := h.turn(t, "hi"); err == nil {
			t.Fatalf("%d: no error", tt.code)
		}
		if n := len(h.srv.Requests()); n != tt.requests {
			t.Errorf("HTTP %d: %d requests, want %d", tt.code, n, tt.requests)
		}
	}
}

// A web page where the API should be is a configuration error, said in one line, never
// retried.
func TestWebPageIsEndpointError(t *testing.T) {
	h := newHarness(t, []scripted.Response{scripted.Page("<!doctype html><html><body><h1>Welcome to our dashboard</h1></body></html>").Forever()})
	_, err := h.turn(t, "hi")
	var ee *model.EndpointError
	if !errors.As(err, &ee) || model.Retryable(err) {
		t.Fatalf("error = %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "base URL looks wrong") || strings.Contains(msg, "\n") || strings.Contains(msg, "Welcome") {
		t.Errorf("message = %q", msg)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

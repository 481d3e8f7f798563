package agent_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
	respclient "github.com/kimi-run/kimi-run/model/responses"
)

// The OpenAI Responses API (provider type openai_responses) replayed from real recordings
// (testdata/providers/README.md says where each comes from): what the loop sees, what it
// counts, and what goes back.

// newResponsesHarness is newHarness with the Responses API client, the thinking switch on.
func newResponsesHarness(t *testing.T, responses []scripted.Response, toolNames ...string) *harness {
	t.Helper()
	h := newHarness(t, responses, toolNames...)
	on := true
	h.agent.Model = respclient.New(model.Config{Protocol: "openai_responses", BaseURL: h.srv.URL(), APIKey: "sk-test", Model: "gpt-5", Thinking: &on})
	return h
}

// input returns request i's input items.
func input(t *testing.T, h *harness, i int) []map[string]any {
	t.Helper()
	reqs := h.srv.Requests()
	if len(reqs) <= i {
		t.Fatalf("%d requests, want more than %d", len(reqs), i)
	}
	var items []map[string]any
	raw, _ := json.Marshal(reqs[i].Body["input"])
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatal(err)
	}
	return items
}

// gpt-5 with reasoning summaries (fantasy's recording): the summary streams as thinking,
// the weather call runs with its recorded arguments under its recorded call id, the usage
// carries the reasoning tokens, and the next request sends back, in order, the reasoning
// item with its encrypted content (no id: store is false), the call, and its output.
func TestRecordedResponsesReasoningTool(t *testing.T) {
	h := newResponsesHarness(t, recording(t, "openai-responses-reasoning-tool"), "weather")
	out, err := h.turn(t, "What's the weather in Florence, Italy?")
	if err != nil {
		t.Fatal(err)
	}
	if out.FinalText != "Right now in Florence, Italy, it’s about 40°C (104°F). Would you like a forecast or details like wind and humidity?" || out.Steps != 2 {
		t.Errorf("outcome = %+v", out)
	}
	if got := h.tools["weather"].got(); len(got) != 1 || got[0] != `{"location":"Florence, Italy"}` {
		t.Errorf("weather calls = %v", got)
	}
	think := thinkingText(h)
	// Each reply's summary in turn; the summary's parts are set apart within a reply.
	if !strings.HasPrefix(think, "**Getting weather info**\n\nI need to respond") ||
		!strings.Contains(think, "see what it returns!**Finalizing the response**\n\nI can mention") || !strings.HasSuffix(think, "Let’s get this right!") {
		t.Errorf("thinking = %q", think)
	}
	want := []event.Usage{
		{Step: 1, InputTokens: 63, OutputTokens: 121, ReasoningTokens: 64, ContextTokens: 184},
		{Step: 2, InputTokens: 92, OutputTokens: 456, ReasoningTokens: 384, ContextTokens: 548},
	}
	if got := usages(h); !reflect.DeepEqual(got, want) {
		t.Errorf("usage = %+v\nwant %+v", got, want)
	}
	items := input(t, h, 1)
	var kinds []string
	for _, it := range items {
		kind, _ := it["type"].(string)
		kinds = append(kinds, kind+":"+str(it["role"]))
	}
	if want := []string{":system", ":user", "reasoning:", "function_call:", "function_call_output:"}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("input items %v, want %v", kinds, want)
	}
	rs, call, result := items[2], items[3], items[4]
	if enc, _ := rs["encrypted_content"].(string); !strings.HasPrefix(enc, "gAAAAABqPBJWAIvEAmUT") || rs["id"] != nil {
		t.Errorf("reasoning item sent back = %v", rs)
	}
	if call["call_id"] != "call_zgUaIBRPTwxxOusyyKw5NVMH" || call["name"] != "weather" || call["arguments"] != `{"location":"Florence, Italy"}` {
		t.Errorf("call sent back = %v", call)
	}
	if result["call_id"] != call["call_id"] || result["output"] != "weather output" {
		t.Errorf("output sent back = %v", result)
	}
}

func str(v any) string { s, _ := v.(string); return s }

// Two calls in one response (fantasy's recording): both run, in order, under their ids; the
// empty reasoning item (no summary, no encrypted content asked) is not sent back.
func TestRecordedResponsesParallelTools(t *testing.T) {
	h := newResponsesHarness(t, recording(t, "openai-responses-parallel-tools"), "add", "multiply")
	out, err := h.turn(t, "Add and multiply 2 and 3")
	if err != nil {
		t.Fatal(err)
	}
	if out.FinalText != "Results:\n- Addition (2 + 3) = 5\n- Multiplication (2 × 3) = 6" || out.ToolCalls != 2 {
		t.Errorf("outcome = %+v", out)
	}
	if a, m := h.tools["add"].got(), h.tools["multiply"].got(); len(a) != 1 || len(m) != 1 || a[0] != `{"a":2,"b":3}` {
		t.Errorf("add %v multiply %v", a, m)
	}
	var ids []string
	for _, it := range input(t, h, 1) {
		if it["type"] == "reasoning" {
			t.Errorf("a reasoning item with nothing to go back was sent: %v", it)
		}
		if it["type"] == "function_call" || it["type"] == "function_call_output" {
			ids = append(ids, str(it["type"])+" "+str(it["call_id"]))
		}
	}
	want := []string{"function_call call_inViAUr9eV0GDtyOywkCxp59", "function_call call_Op66UUnzuOoKmgGeFJQJFTUY",
		"function_call_output call_inViAUr9eV0GDtyOywkCxp59", "function_call_output call_Op66UUnzuOoKmgGeFJQJFTUY"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("calls and outputs sent back = %v", ids)
	}
	if u := usages(h); len(u) != 2 || u[0].ReasoningTokens != 128 || u[1].InputTokens != 167 {
		t.Errorf("usage = %+v", u)
	}
}

// OpenRouter's Responses API (pydantic-ai's recording): raw reasoning arrives as
// reasoning_text deltas between comment lines and its item is finished after the message;
// the thinking is shown once, the answer is the message, and the reasoning text goes back
// as the item's content (an open model needs its chain of thought; nothing is encrypted).
func TestRecordedOpenRouterResponsesRawReasoning(t *testing.T) {
	h := newResponsesHarness(t, append(recording(t, "openrouter-responses-raw-reasoning"), scripted.Text("ok")))
	out, err := h.turn(t, "What is 2+2?")
	if err != nil {
		t.Fatal(err)
	}
	if out.FinalText != "4" {
		t.Errorf("final text = %q", out.FinalText)
	}
	if got := thinkingText(h); got != `The user asks: "What is 2+2?" They expect a straightforward answer: 4. Just answer 4.` {
		t.Errorf("thinking = %q", got)
	}
	if u := usages(h); len(u) != 1 || u[0] != (event.Usage{Step: 1, InputTokens: 78, OutputTokens: 37, ReasoningTokens: 22, ContextTokens: 115}) {
		t.Errorf("usage = %+v", u)
	}
	if _, err := h.turn(t, "thanks"); err != nil {
		t.Fatal(err)
	}
	items := input(t, h, 1)
	if len(items) < 4 || items[2]["type"] != "reasoning" || items[3]["type"] != "message" {
		t.Fatalf("input items = %v", items)
	}
	content, _ := items[2]["content"].([]any)
	if len(content) != 1 || content[0].(map[string]any)["text"] != `The user asks: "What is 2+2?" They expect a straightforward answer: 4. Just answer 4.` {
		t.Errorf("reasoning sent back = %v", items[2])
	}
}

// Whole responses as one JSON document each (pydantic-ai's recorded bodies): read as the
// replies they are, the second's cached input tokens counted.
func TestRecordedResponsesCachedWhole(t *testing.T) {
	h := newResponsesHarness(t, recording(t, "openai-responses-cached-whole"))
	for range 2 {
		if out, err := h.turn(t, "Say OK"); err != nil || out.FinalText != "OK" {
			t.Fatalf("outcome %+v, %v", out, err)
		}
	}
	want := []event.Usage{
		{Step: 1, InputTokens: 4020, OutputTokens: 5, ContextTokens: 4025},
		{Step: 1, InputTokens: 4020, OutputTokens: 5, CachedTokens: 4012, ContextTokens: 4025},
	}
	if got := usages(h); !reflect.DeepEqual(got, want) {
		t.Errorf("usage = %+v\nwant %+v", got, want)
	}
	if n, r := len(h.srv.Requests()), len(h.sink.Of(event.TypeRetry)); n != 2 || r != 0 {
		t.Errorf("%d requests and %d retries", n, r)
	}
}

// A 400 from the Responses API (recorded) is the provider's refusal: one attempt, its
// message in the error.
func TestRecordedResponses400(t *testing.T) {
	h := newResponsesHarness(t, recording(t, "openai-responses-400"))
	_, err := h.turn(t, "hi")
	if err == nil || !strings.Contains(err.Error(), "Invalid 'temperature': decimal below minimum value") || !strings.Contains(err.Error(), "HTTP 400") {
		t.Fatalf("err = %v", err)
	}
	if n := len(h.srv.Requests()); n != 1 || len(h.sink.Of(event.TypeRetry)) != 0 {
		t.Errorf("%d requests: a 400 was retried", n)
	}
}

// The other endings (documented shapes, built): the token limit cuts the reply, which the
// loop continues; a failed response and an error event are retried with their words in
// the retry events; the answer completes the continuation.
func TestRecordedResponsesEndings(t *testing.T) {
	h := newResponsesHarness(t, recording(t, "openai-responses-endings"))
	out, err := h.turn(t, "write it")
	if err != nil {
		t.Fatal(err)
	}
	if out.FinalText != "The first half and the rest." {
		t.Errorf("final text = %q", out.FinalText)
	}
	retries := h.sink.Of(event.TypeRetry)
	if len(retries) != 2 || !strings.Contains(retries[0].Data.(event.Retry).Error, "The model produced invalid content") ||
		!strings.Contains(retries[1].Data.(event.Retry).Error, "Rate limit reached for gpt-5") {
		t.Errorf("retry events = %+v", retries)
	}
	if u := usages(h); len(u) != 2 || u[0].OutputTokens != 16 || u[1].CachedTokens != 24 {
		t.Errorf("usage = %+v", u)
	}
}

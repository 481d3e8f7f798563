package agent_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scripted"
)

// The chat-completions stream shapes issue 30 part 2 found misread, replayed from real
// recordings (testdata/providers/README.md says where each comes from).

// Mistral's magistral (recorded): delta.content as a list of typed parts. Thinking parts
// are thinking, text parts (and plain string content) the answer; on the next request the
// thinking goes back as a thinking part in front of the text, the shape Mistral accepts
// (pydantic-ai's recorded request to Mistral carries it so).
func TestRecordedMistralThinkingParts(t *testing.T) {
	h := newHarness(t, append(recording(t, "mistral-thinking-parts"), scripted.Text("ok")))
	out, err := h.turn(t, "How do I cross the street?")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.FinalText, "To cross the street safely, follow these steps:\n\n1. Look both ways") ||
		!strings.HasSuffix(out.FinalText, "By following these steps, you can ensure a safe crossing.") || len(out.FinalText) != 607 {
		t.Errorf("final text = %q", out.FinalText)
	}
	think := thinkingText(h)
	if !strings.HasPrefix(think, "Okay, the user is asking how to cross the street.") || len(think) != 421 {
		t.Errorf("thinking (%d bytes) = %q", len(think), think)
	}
	if strings.Contains(out.FinalText, "Okay, the user") {
		t.Error("thinking leaked into the answer")
	}
	if got, want := usages(h), []event.Usage{{Step: 1, InputTokens: 10, OutputTokens: 232, ContextTokens: 242}}; !reflect.DeepEqual(got, want) {
		t.Errorf("usage = %+v, want %+v", got, want)
	}
	if len(h.srv.Requests()) != 1 || len(h.sink.Of(event.TypeRetry)) != 0 {
		t.Fatalf("%d requests, %d retries: the stream was not read as it came", len(h.srv.Requests()), len(h.sink.Of(event.TypeRetry)))
	}

	if _, err := h.turn(t, "thanks"); err != nil {
		t.Fatal(err)
	}
	sent := assistantSent(t, h, 1)[0]
	parts, _ := sent["content"].([]any)
	if len(parts) != 2 {
		t.Fatalf("assistant content sent back = %#v", sent["content"])
	}
	thinking := parts[0].(map[string]any)
	inner, _ := thinking["thinking"].([]any)
	if thinking["type"] != "thinking" || len(inner) != 1 || inner[0].(map[string]any)["text"] != think {
		t.Errorf("thinking part sent back = %v", thinking)
	}
	if text := parts[1].(map[string]any); text["type"] != "text" || text["text"] != out.FinalText {
		t.Errorf("text part sent back = %v", text)
	}
	if _, ok := sent["reasoning_content"]; ok {
		t.Errorf("reasoning_content sent to Mistral: %v", sent)
	}
}

// Snowflake Cortex (recorded): chunks with no finish_reason, usage, then data: [DONE]. The
// [DONE] after a complete message ends it: one request each, no retry; reasoning_details
// in the second recording are thinking.
func TestRecordedSnowflakeDoneWithoutFinish(t *testing.T) {
	h := newHarness(t, recording(t, "snowflake-done-no-finish"))
	out, err := h.turn(t, "What is 2 + 2?")
	if err != nil || out.FinalText != "4" {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	out, err = h.turn(t, "What is 15 * 27?")
	if err != nil {
		t.Fatal(err)
	}
	if want := "15 × 27 = **405**\n\nHere's the breakdown:\n- 15 × 20 = 300\n- 15 × 7 = 105\n- 300 + 105 = **405**"; out.FinalText != want {
		t.Errorf("final text = %q, want %q", out.FinalText, want)
	}
	if got := thinkingText(h); got != "15 * 27 = 405" {
		t.Errorf("thinking = %q", got)
	}
	want := []event.Usage{
		{Step: 1, InputTokens: 22, OutputTokens: 5, ContextTokens: 27},
		{Step: 1, InputTokens: 45, OutputTokens: 73, ContextTokens: 118},
	}
	if got := usages(h); !reflect.DeepEqual(got, want) {
		t.Errorf("usage = %+v, want %+v", got, want)
	}
	if n, r := len(h.srv.Requests()), len(h.sink.Of(event.TypeRetry)); n != 2 || r != 0 {
		t.Errorf("%d requests and %d retries, want 2 and 0", n, r)
	}
}

// [DONE] ends a reply that had no finish_reason, with what it carried: tool calls make it
// a tool-call reply. A stream that ends without [DONE] (or is cut) is still a cut reply,
// asked again.
func TestDoneWithoutFinishReason(t *testing.T) {
	done := func(parts ...scripted.Part) scripted.Response {
		return scripted.Reply(append(parts, scripted.Raw("data: [DONE]\n\n"), scripted.End())...)
	}
	t.Run("tool calls", func(t *testing.T) {
		h := newHarness(t, []scripted.Response{done(scripted.Call("Shell", `{"command":"ls"}`)), done(scripted.Say("listed"))}, "Shell")
		out, err := h.turn(t, "list")
		if err != nil || out.FinalText != "listed" || out.Steps != 2 {
			t.Fatalf("outcome %+v, %v", out, err)
		}
		if got := h.tools["Shell"].got(); len(got) != 1 || got[0] != `{"command":"ls"}` {
			t.Errorf("Shell calls = %v", got)
		}
	})
	t.Run("no done is cut", func(t *testing.T) {
		h := newHarness(t, []scripted.Response{scripted.Reply(scripted.Say("half an ans"), scripted.End()), scripted.Text("whole answer")})
		out, err := h.turn(t, "go")
		if err != nil || out.FinalText != "whole answer" {
			t.Fatalf("outcome %+v, %v", out, err)
		}
		if r := h.sink.Of(event.TypeRetry); len(r) != 1 {
			t.Errorf("%d retry events, want 1 for the reply that ended without [DONE]", len(r))
		}
	})
	t.Run("nothing before done is empty", func(t *testing.T) {
		h := newHarness(t, []scripted.Response{done(), scripted.Text("second try")})
		out, err := h.turn(t, "go")
		if err != nil || out.FinalText != "second try" {
			t.Fatalf("outcome %+v, %v", out, err)
		}
		if r := h.sink.Of(event.TypeRetry); len(r) != 1 || !strings.Contains(r[0].Data.(event.Retry).Error, "empty reply") {
			t.Errorf("retry events = %+v", r)
		}
	})
}

// A server that ignores stream:true (recorded Snowflake Cortex bodies with an empty
// finish_reason): the whole reply as one JSON document is read as the one-shot reply it
// is: the tool call runs, its answer ends the turn, no request is repeated.
func TestRecordedPlainJSONReply(t *testing.T) {
	h := newHarness(t, recording(t, "plain-json-reply"), "get_weather")
	out, err := h.turn(t, "What is the weather in Mexico City?")
	if err != nil {
		t.Fatal(err)
	}
	if out.FinalText != "The weather in Mexico City is currently sunny with a pleasant temperature of 25°C." || out.Steps != 2 {
		t.Errorf("outcome = %+v", out)
	}
	if got := h.tools["get_weather"].got(); len(got) != 1 || got[0] != `{"city":"Mexico City"}` {
		t.Errorf("get_weather calls = %v", got)
	}
	want := []event.Usage{
		{Step: 1, InputTokens: 568, OutputTokens: 55, ContextTokens: 623},
		{Step: 2, InputTokens: 642, OutputTokens: 21, ContextTokens: 663},
	}
	if got := usages(h); !reflect.DeepEqual(got, want) {
		t.Errorf("usage = %+v, want %+v", got, want)
	}
	if n, r := len(h.srv.Requests()), len(h.sink.Of(event.TypeRetry)); n != 2 || r != 0 {
		t.Errorf("%d requests and %d retries, want 2 and 0", n, r)
	}
	calls, _ := assistantSent(t, h, 1)[0]["tool_calls"].([]any)
	if len(calls) != 1 || calls[0].(map[string]any)["id"] != "toolu_bdrk_015BgHUFs4HS1TVWWwNRNxip" {
		t.Errorf("tool calls sent back = %v", calls)
	}
}

// Mistral's whole reply as one JSON document (recorded body): its content's thinking part
// is thinking, its text part the answer.
func TestRecordedMistralPlainThinking(t *testing.T) {
	h := newHarness(t, recording(t, "mistral-plain-thinking"))
	out, err := h.turn(t, "how do I cross the river?")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.FinalText, "Crossing a river is quite different from crossing a street") {
		t.Errorf("final text = %q", out.FinalText)
	}
	if think := thinkingText(h); !strings.HasPrefix(think, "**Analogizing crossing a river**") || strings.Contains(out.FinalText, "Analogizing") {
		t.Errorf("thinking = %.80q", think)
	}
	if u := usages(h); len(u) != 1 || u[0].InputTokens == 0 {
		t.Errorf("usage = %+v", u)
	}
}

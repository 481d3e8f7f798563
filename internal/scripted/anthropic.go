package scripted

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
)

// Anthropic's dialect. A request to /v1/messages (provider type anthropic) is answered from
// the same script as a chat-completions one: each response's steps are translated into the
// Messages API's event stream as they are played, so any scripted reply (text, thinking,
// tool calls, usage, finish reasons, cuts, pauses, floods, keep-alives, error lines)
// exercises the Anthropic client too. A data line that is not a chat-completions chunk (a
// recorded Anthropic stream) is sent as it is, and so is a response that is not an event
// stream (an error answer).
//
// The translation: the first chunk opens the message (message_start); reasoning, content
// and each tool call become thinking, text and tool_use blocks, opened and closed as the
// kind changes (a thinking block closes with a signature made from its text, so that what
// goes back can be checked); tool-call arguments stream as input_json_delta; an error
// object becomes an error event; the finish_reason (stop end_turn, tool_calls tool_use,
// length max_tokens, content_filter refusal, any other as it is: pause_turn,
// model_context_window_exceeded) goes out with the usage in message_delta (prompt tokens
// less the cached ones as input_tokens, the cached as cache_read_input_tokens), then
// message_stop; [DONE] without a finish_reason is a message_stop alone.

// AnthropicPath is the Messages API's path under the server's URL.
const AnthropicPath = "/v1/messages"

var anthropicDialect = dialect{path: AnthropicPath, match: func(p string) bool { return p == AnthropicPath }, render: func(r Response) Response { return r.translated(&anthropicTranslator{}) },
	messages: func(body map[string]any) ([]map[string]any, bool) { return anthropicMessages(body), true }}

// ThinkingSignature is the signature the Anthropic dialect gives a thinking block of text.
func ThinkingSignature(text string) string {
	h := fnv.New64a()
	h.Write([]byte(text))
	return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "scripted-signature-%016x", h.Sum64()))
}

// beforeFlood opens the text block once; the flood repeats its text delta.
func (t *anthropicTranslator) beforeFlood() []byte {
	var open bytes.Buffer
	t.start(&open)
	t.block(&open, "text", "", "")
	return open.Bytes()
}

// beforeEnd: nothing is held back.
func (t *anthropicTranslator) beforeEnd() []byte { return nil }

// anthropicTranslator turns chat-completions events into the Messages API's.
type anthropicTranslator struct {
	started bool
	// The open block: its index, kind, and for a tool call the chat index and id it
	// came from; the thinking text so far, for its signature.
	open     bool
	index    int
	kind     string
	callIdx  int
	callID   string
	hasArgs  bool
	thought  strings.Builder
	finish   string
	finished bool
	usage    *usage
	ended    bool
}

// events translates the SSE events in data.
func (t *anthropicTranslator) events(data []byte) []byte {
	return chatEvents(data, chatHandlers{
		done: func(out *bytes.Buffer) { out.Write(t.end()) },
		errorObject: func(out *bytes.Buffer, e json.RawMessage) {
			writeAnthropic(out, map[string]any{"type": "error", "error": e})
		},
		chunk: t.chunk,
	})
}

// chunk translates one chat-completions chunk.
func (t *anthropicTranslator) chunk(out *bytes.Buffer, c chunk) {
	t.start(out)
	u := c.Usage
	if c.XGroq != nil && c.XGroq.Usage != nil {
		u = c.XGroq.Usage
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		d := ch.Delta
		if text := d.thought(); text != "" {
			t.block(out, "thinking", "", "")
			t.thought.WriteString(text)
			t.delta(out, map[string]any{"type": "thinking_delta", "thinking": text})
		}
		if d.Content != nil && *d.Content != "" {
			t.block(out, "text", "", "")
			t.delta(out, map[string]any{"type": "text_delta", "text": *d.Content})
		}
		for _, tc := range d.ToolCalls {
			t.call(out, tc)
		}
		if ch.Usage != nil {
			u = ch.Usage
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			t.close(out)
			t.finish, t.finished = *ch.FinishReason, true
		}
	}
	if u != nil {
		t.usage = u
		if t.finished {
			out.Write(t.end())
		}
	}
}

// start opens the message, once.
func (t *anthropicTranslator) start(out *bytes.Buffer) {
	if t.started {
		return
	}
	t.started = true
	writeAnthropic(out, map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_scripted", "type": "message", "role": "assistant", "model": Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}}})
}

// block makes sure a block of kind is open (for a tool call, the call id and name).
func (t *anthropicTranslator) block(out *bytes.Buffer, kind, id, name string) {
	t.start(out)
	if t.open && t.kind == kind && kind != "tool_use" {
		return
	}
	t.close(out)
	cb := map[string]any{"type": kind}
	switch kind {
	case "text":
		cb["text"] = ""
	case "thinking":
		cb["thinking"], cb["signature"] = "", ""
	case "tool_use":
		cb["id"], cb["name"], cb["input"] = id, name, map[string]any{}
	}
	writeAnthropic(out, map[string]any{"type": "content_block_start", "index": t.index, "content_block": cb})
	t.open, t.kind, t.callID, t.hasArgs = true, kind, id, false
	t.thought.Reset()
}

// call adds a tool-call delta: a new tool_use block when it starts a call (another index,
// another id, or a name after arguments), else arguments of the open one.
func (t *anthropicTranslator) call(out *bytes.Buffer, tc toolDelta) {
	fresh := !t.open || t.kind != "tool_use" || tc.Index != t.callIdx ||
		(tc.ID != "" && tc.ID != t.callID) || (tc.ID == "" && tc.Function.Name != "" && t.hasArgs)
	if fresh {
		t.block(out, "tool_use", tc.ID, tc.Function.Name)
		t.callIdx = tc.Index
	}
	if tc.Function.Arguments != "" {
		t.hasArgs = true
		t.delta(out, map[string]any{"type": "input_json_delta", "partial_json": tc.Function.Arguments})
	}
}

func (t *anthropicTranslator) delta(out *bytes.Buffer, d map[string]any) {
	writeAnthropic(out, map[string]any{"type": "content_block_delta", "index": t.index, "delta": d})
}

// close ends the open block; a thinking block gets its signature first.
func (t *anthropicTranslator) close(out *bytes.Buffer) {
	if !t.open {
		return
	}
	if t.kind == "thinking" {
		t.delta(out, map[string]any{"type": "signature_delta", "signature": ThinkingSignature(t.thought.String())})
	}
	writeAnthropic(out, map[string]any{"type": "content_block_stop", "index": t.index})
	t.open = false
	t.index++
}

// end closes the message: the stop reason with the usage, then message_stop.
func (t *anthropicTranslator) end() []byte {
	if t.ended || !t.started {
		return nil
	}
	t.ended = true
	var out bytes.Buffer
	t.close(&out)
	if t.finished {
		u := map[string]any{"output_tokens": 0}
		if t.usage != nil {
			cached := 0
			switch {
			case t.usage.CachedTop != nil:
				cached = *t.usage.CachedTop
			case t.usage.Details != nil:
				cached = t.usage.Details.Cached
			}
			u = map[string]any{"input_tokens": t.usage.Prompt - cached, "cache_creation_input_tokens": 0,
				"cache_read_input_tokens": cached, "output_tokens": t.usage.Completion}
		}
		writeAnthropic(&out, map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": anthropicStop(t.finish), "stop_sequence": nil}, "usage": u})
	}
	writeAnthropic(&out, map[string]any{"type": "message_stop"})
	return out.Bytes()
}

func anthropicStop(reason string) string {
	switch reason {
	case "stop":
		return "end_turn"
	case "tool_calls", "function_call":
		return "tool_use"
	case "length":
		return "max_tokens"
	case "content_filter":
		return "refusal"
	}
	return reason
}

// writeAnthropic writes one event as the API does: its type as the event name, then the
// data line.
func writeAnthropic(buf *bytes.Buffer, v map[string]any) {
	fmt.Fprintf(buf, "event: %s\ndata: ", v["type"])
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("scripted: encode anthropic event: " + err.Error()) // maps of plain values
	}
	buf.WriteString("\n")
}

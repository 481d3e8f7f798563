package scripted

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Gemini's dialect. A request to a Gemini path (…:streamGenerateContent, the provider types
// gemini, google_genai and vertexai) is answered from the same script as a chat-completions
// one: the steps of each response are translated into Gemini's stream as they are played,
// so any scripted reply (text, thinking, tool calls, usage, finish reasons, cuts, pauses,
// floods, error lines) exercises the Gemini client too. A data line that is not a
// chat-completions chunk (a recorded Gemini stream, an error object) is sent as it is, and
// so is a response that is not an event stream.
//
// The translation, chunk by chunk: content → a text part; reasoning → a thought part; a
// tool call → one functionCall part with the whole arguments object, sent once the call is
// complete (Gemini never splits a call), without the OpenAI id (Gemini 2.5 sends none), or
// finishReason MALFORMED_FUNCTION_CALL when its arguments are not a JSON object; the
// finish_reason → finishReason (stop and tool_calls STOP, length MAX_TOKENS,
// content_filter SAFETY, others upper-cased), sent with the usage in one last chunk;
// usage → usageMetadata (reasoning tokens as thoughtsTokenCount, beside
// candidatesTokenCount); [DONE] is dropped.

// geminiPath reports whether a request path is Gemini's streaming method.
func geminiPath(p string) bool { return strings.HasSuffix(p, ":streamGenerateContent") }

// geminiDialect answers Gemini's streaming method under any API version and resource path:
// /v1beta/models/M, /v1beta1/publishers/google/models/M,
// /v1beta1/projects/P/locations/L/publishers/google/models/M.
var geminiDialect = dialect{path: "…:streamGenerateContent", match: geminiPath, render: func(r Response) Response { return r.translated(&geminiTranslator{}) },
	messages: func(body map[string]any) ([]map[string]any, bool) {
		if _, ok := body["contents"]; !ok || body["messages"] != nil {
			return nil, false
		}
		return geminiMessages(body), true
	}}

// beforeFlood: a flood is text parts, which need nothing opened.
func (t *geminiTranslator) beforeFlood() []byte { return nil }

// beforeEnd sends the calls gathered so far before a clean end of the body.
func (t *geminiTranslator) beforeEnd() []byte { return t.flushCalls() }

// geminiTranslator turns chat-completions events into Gemini's, holding what Gemini sends
// later: the tool calls until they are complete, the finish until the usage.
type geminiTranslator struct {
	calls    []*geminiCallDraft
	byIndex  map[int]*geminiCallDraft
	finish   string
	finished bool
	ended    bool
}

type geminiCallDraft struct {
	id, name string
	args     strings.Builder
}

// events translates the SSE events in data.
func (t *geminiTranslator) events(data []byte) []byte {
	return chatEvents(data, chatHandlers{
		done:  func(out *bytes.Buffer) { out.Write(t.end()) },
		chunk: func(out *bytes.Buffer, c chunk) { out.Write(t.chunk(c)) },
	})
}

// chunk translates one chat-completions chunk.
func (t *geminiTranslator) chunk(c chunk) []byte {
	var out bytes.Buffer
	var parts []map[string]any
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
			parts = append(parts, map[string]any{"text": text, "thought": true})
		}
		if d.Content != nil && *d.Content != "" {
			if len(t.calls) > 0 {
				if len(parts) > 0 {
					writeGemini(&out, geminiChunk(parts, "", nil))
					parts = nil
				}
				out.Write(t.flushCalls())
			}
			parts = append(parts, map[string]any{"text": *d.Content})
		}
		for _, tc := range d.ToolCalls {
			t.callDelta(tc)
		}
		if ch.Usage != nil {
			u = ch.Usage
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			t.finish, t.finished = *ch.FinishReason, true
		}
	}
	if len(parts) > 0 {
		writeGemini(&out, geminiChunk(parts, "", nil))
	}
	if u != nil {
		out.Write(t.finishWith(u))
	}
	return out.Bytes()
}

// callDelta adds a tool-call delta to its call: the one at its index, unless it brings
// another id (a new call reusing the index, or deltas that have no index at all).
func (t *geminiTranslator) callDelta(tc toolDelta) {
	if t.byIndex == nil {
		t.byIndex = map[int]*geminiCallDraft{}
	}
	d := t.byIndex[tc.Index]
	if d == nil || (tc.ID != "" && d.id != "" && tc.ID != d.id) {
		d = &geminiCallDraft{id: tc.ID}
		t.byIndex[tc.Index] = d
		t.calls = append(t.calls, d)
	}
	if d.name != tc.Function.Name {
		d.name += tc.Function.Name
	}
	d.args.WriteString(tc.Function.Arguments)
}

// flushCalls sends the calls gathered so far, each a functionCall part.
func (t *geminiTranslator) flushCalls() []byte {
	if len(t.calls) == 0 {
		return nil
	}
	var parts []map[string]any
	malformed := false
	for _, c := range t.calls {
		args := strings.TrimSpace(c.args.String())
		if args == "" {
			args = "{}"
		}
		var obj map[string]any
		if json.Unmarshal([]byte(args), &obj) != nil || obj == nil {
			malformed = true
			continue
		}
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.name, "args": json.RawMessage(args)}})
	}
	t.calls, t.byIndex = nil, nil
	var out bytes.Buffer
	if len(parts) > 0 {
		writeGemini(&out, geminiChunk(parts, "", nil))
	}
	if malformed {
		t.finish, t.finished = "malformed_function_call", true
	}
	return out.Bytes()
}

// finishWith sends the pending calls and the finish with usage u (nil: none), once.
func (t *geminiTranslator) finishWith(u *usage) []byte {
	if t.ended {
		return nil
	}
	out := t.flushCalls()
	if !t.finished && u == nil {
		return out
	}
	var buf bytes.Buffer
	buf.Write(out)
	reason := ""
	if t.finished {
		reason = geminiFinish(t.finish)
		t.ended = true
	}
	writeGemini(&buf, geminiChunk(nil, reason, u))
	return buf.Bytes()
}

// end closes the stream: what is still held goes out.
func (t *geminiTranslator) end() []byte {
	if t.ended {
		return nil
	}
	if !t.finished {
		return t.flushCalls()
	}
	return t.finishWith(nil)
}

func geminiFinish(reason string) string {
	switch reason {
	case "stop", "tool_calls", "function_call":
		return "STOP"
	case "length":
		return "MAX_TOKENS"
	case "content_filter":
		return "SAFETY"
	}
	return strings.ToUpper(reason)
}

// geminiChunk builds one GenerateContentResponse.
func geminiChunk(parts []map[string]any, finish string, u *usage) map[string]any {
	cand := map[string]any{"index": 0}
	if parts != nil {
		cand["content"] = map[string]any{"role": "model", "parts": parts}
	} else {
		empty := ""
		cand["content"] = map[string]any{"role": "model", "parts": []map[string]any{{"text": empty}}}
	}
	if finish != "" {
		cand["finishReason"] = finish
	}
	out := map[string]any{"candidates": []any{cand}, "modelVersion": Model}
	if u != nil {
		meta := map[string]any{"promptTokenCount": u.Prompt, "totalTokenCount": u.Prompt + u.Completion}
		thoughts := 0
		if u.Completed != nil {
			thoughts = u.Completed.Reasoning
		}
		meta["candidatesTokenCount"] = u.Completion - thoughts
		if thoughts > 0 {
			meta["thoughtsTokenCount"] = thoughts
		}
		switch {
		case u.CachedTop != nil && *u.CachedTop > 0:
			meta["cachedContentTokenCount"] = *u.CachedTop
		case u.Details != nil && u.Details.Cached > 0:
			meta["cachedContentTokenCount"] = u.Details.Cached
		}
		out["usageMetadata"] = meta
	}
	return out
}

// writeGemini writes one data event as Google does (a CRLF blank line after it).
func writeGemini(buf *bytes.Buffer, v any) {
	buf.WriteString("data: ")
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("scripted: encode gemini chunk: " + err.Error()) // maps of plain values
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	buf.WriteString("\r\n\r\n")
}

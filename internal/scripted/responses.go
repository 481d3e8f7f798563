package scripted

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// The OpenAI Responses API (POST /v1/responses, provider type openai_responses). Every
// script is written in chat-completions chunks; for a Responses request the server
// translates the stream as it plays it (responsesWriter), so builders, scenario files,
// cuts, pauses, floods and hangs serve this protocol unchanged:
//
//   - reasoning deltas (reasoning_content, reasoning) become a reasoning item with
//     reasoning_summary_text deltas; the item's encrypted_content is "enc:" and the
//     base64 of its summary, so a test can see it come back;
//   - content deltas become a message item with output_text deltas;
//   - each tool call becomes a function_call item with function_call_arguments deltas;
//   - a finish_reason closes the open items; [DONE] sends response.completed with the
//     usage (response.incomplete for length and content filters, response.failed for
//     OpenRouter's finish_reason "error");
//   - an error object {"error":…} becomes an error event {"type":"error","code","message"};
//   - every other line (comments, data that is not a chat chunk, such as a recorded
//     Responses stream) passes verbatim.
const responsesPath = "/v1/responses"

var responsesDialect = dialect{path: responsesPath, match: func(p string) bool { return p == responsesPath },
	stream: func(w io.Writer) *responsesWriter { return &responsesWriter{w: w, calls: map[int]*openItem{}} },
	messages: func(body map[string]any) ([]map[string]any, bool) {
		if _, ok := body["input"]; !ok {
			return nil, false
		}
		return responsesMessages(body), true
	}}

// responsesWriter translates a chat-completions event stream into Responses API events,
// line by line, as it is written.
type responsesWriter struct {
	w    io.Writer
	line []byte

	next      int // the next output index
	reasoning *openItem
	message   *openItem
	calls     map[int]*openItem // by chat tool-call index
	callOrder []*openItem
	usage     map[string]any
	finish    string
	seq       int
}

// openItem is an output item being streamed.
type openItem struct {
	index      int
	id, callID string
	name       string
	text       strings.Builder
	done       bool
}

func (t *responsesWriter) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			t.line = append(t.line, rest...)
			break
		}
		t.line = append(t.line, rest[:i+1]...)
		rest = rest[i+1:]
		if err := t.translate(t.line); err != nil {
			return 0, err
		}
		t.line = t.line[:0]
	}
	return len(p), nil
}

// flood writes a flood of text as output_text deltas straight through: its line is never
// held whole.
func (t *responsesWriter) flood(per int64) error {
	if err := t.openMessage(); err != nil {
		return err
	}
	e, err := json.Marshal(map[string]any{"type": "response.output_text.delta", "item_id": t.message.id,
		"output_index": t.message.index, "content_index": 0, "delta": floodText})
	if err != nil {
		return err
	}
	return writeFlood(t.w, append(append([]byte("data: "), e...), "\n\n"...), per)
}

// chatChunk is what the writer reads of a chat-completions chunk.
type chatChunk struct {
	Choices []chatChoice   `json:"choices"`
	Usage   map[string]any `json:"usage"`
	XGroq   *struct {
		Usage map[string]any `json:"usage"`
	} `json:"x_groq"`
	Error json.RawMessage `json:"error"`
}

type chatChoice struct {
	Index int `json:"index"`
	Delta struct {
		Content          *string `json:"content"`
		ReasoningContent string  `json:"reasoning_content"`
		Reasoning        *string `json:"reasoning"`
		ToolCalls        []struct {
			Index    int    `json:"index"`
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"delta"`
	FinishReason *string        `json:"finish_reason"`
	Usage        map[string]any `json:"usage"`
}

// translate writes one line of the chat stream as Responses events: a chunk's deltas as
// item deltas, [DONE] as the response's end, anything else verbatim.
func (t *responsesWriter) translate(line []byte) error {
	payload, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:"))
	if !ok {
		_, err := t.w.Write(line)
		return err
	}
	payload = bytes.TrimSpace(payload)
	if string(payload) == "[DONE]" {
		return t.complete()
	}
	var c chatChunk
	if json.Unmarshal(payload, &c) != nil || (c.Choices == nil && c.Usage == nil && len(c.Error) == 0) {
		_, err := t.w.Write(line) // not a chat chunk: a native event, or garbage on purpose
		return err
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		var e struct {
			Code    any    `json:"code"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(c.Error, &e)
		return t.event(map[string]any{"type": "error", "code": e.Code, "message": e.Message, "param": nil})
	}
	for _, u := range []map[string]any{c.Usage, xgroqUsage(c.XGroq)} {
		if u != nil {
			t.usage = u
		}
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if err := t.choice(ch); err != nil {
			return err
		}
	}
	return nil
}

// choice translates the first choice's deltas: reasoning, text, tool calls, in that order,
// then its finish.
func (t *responsesWriter) choice(ch chatChoice) error {
	if ch.Usage != nil {
		t.usage = ch.Usage
	}
	d := ch.Delta
	think := d.ReasoningContent
	if think == "" && d.Reasoning != nil {
		think = *d.Reasoning
	}
	if think != "" {
		if err := t.think(think); err != nil {
			return err
		}
	}
	if d.Content != nil && *d.Content != "" {
		if err := t.say(*d.Content); err != nil {
			return err
		}
	}
	for _, tc := range d.ToolCalls {
		if err := t.call(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments); err != nil {
			return err
		}
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		t.finish = *ch.FinishReason
		return t.closeAll()
	}
	return nil
}

func xgroqUsage(x *struct {
	Usage map[string]any `json:"usage"`
}) map[string]any {
	if x == nil {
		return nil
	}
	return x.Usage
}

// event writes one Responses event.
func (t *responsesWriter) event(e map[string]any) error {
	e["sequence_number"] = t.seq
	t.seq++
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(t.w, "event: %s\ndata: %s\n\n", e["type"], b)
	return err
}

func (t *responsesWriter) open(kind string, item map[string]any) (*openItem, error) {
	it := &openItem{index: t.next, id: fmt.Sprintf("%s_scripted_%d", kind, t.next)}
	t.next++
	item["id"] = it.id
	return it, t.event(map[string]any{"type": "response.output_item.added", "output_index": it.index, "item": item})
}

func (t *responsesWriter) think(s string) error {
	if t.reasoning == nil || t.reasoning.done {
		if err := t.closeAll(); err != nil {
			return err
		}
		it, err := t.open("rs", map[string]any{"type": "reasoning", "summary": []any{}})
		if err != nil {
			return err
		}
		t.reasoning = it
		if err := t.event(map[string]any{"type": "response.reasoning_summary_part.added", "item_id": it.id, "output_index": it.index,
			"summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}}); err != nil {
			return err
		}
	}
	t.reasoning.text.WriteString(s)
	return t.event(map[string]any{"type": "response.reasoning_summary_text.delta", "item_id": t.reasoning.id,
		"output_index": t.reasoning.index, "summary_index": 0, "delta": s})
}

func (t *responsesWriter) openMessage() error {
	if t.message != nil && !t.message.done {
		return nil
	}
	if err := t.closeAll(); err != nil {
		return err
	}
	it, err := t.open("msg", map[string]any{"type": "message", "role": "assistant", "status": "in_progress", "content": []any{}})
	if err != nil {
		return err
	}
	t.message = it
	return t.event(map[string]any{"type": "response.content_part.added", "item_id": it.id, "output_index": it.index,
		"content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
}

func (t *responsesWriter) say(s string) error {
	if err := t.openMessage(); err != nil {
		return err
	}
	t.message.text.WriteString(s)
	return t.event(map[string]any{"type": "response.output_text.delta", "item_id": t.message.id,
		"output_index": t.message.index, "content_index": 0, "delta": s})
}

func (t *responsesWriter) call(index int, id, name, args string) error {
	it := t.calls[index]
	if it == nil || (id != "" && it.callID != "" && id != it.callID) {
		if err := t.closeAll(); err != nil {
			return err
		}
		var err error
		if it, err = t.open("fc", map[string]any{"type": "function_call", "status": "in_progress", "call_id": id, "name": name, "arguments": ""}); err != nil {
			return err
		}
		it.callID, it.name = id, name
		t.calls[index] = it
		t.callOrder = append(t.callOrder, it)
	}
	if args == "" {
		return nil
	}
	it.text.WriteString(args)
	return t.event(map[string]any{"type": "response.function_call_arguments.delta", "item_id": it.id,
		"output_index": it.index, "delta": args})
}

// closeAll finishes the open items, each with its whole content.
func (t *responsesWriter) closeAll() error {
	if it := t.reasoning; it != nil && !it.done {
		it.done = true
		if err := t.event(map[string]any{"type": "response.output_item.done", "output_index": it.index, "item": t.reasoningItem(it)}); err != nil {
			return err
		}
	}
	if it := t.message; it != nil && !it.done {
		it.done = true
		if err := t.event(map[string]any{"type": "response.output_item.done", "output_index": it.index, "item": t.messageItem(it)}); err != nil {
			return err
		}
	}
	for _, it := range t.callOrder {
		if it.done {
			continue
		}
		it.done = true
		if err := t.event(map[string]any{"type": "response.function_call_arguments.done", "item_id": it.id, "output_index": it.index,
			"arguments": it.text.String()}); err != nil {
			return err
		}
		if err := t.event(map[string]any{"type": "response.output_item.done", "output_index": it.index, "item": t.callItem(it)}); err != nil {
			return err
		}
	}
	return nil
}

// EncryptedReasoning is the encrypted_content the server gives a scripted reasoning item
// whose summary is text.
func EncryptedReasoning(text string) string {
	return "enc:" + base64.StdEncoding.EncodeToString([]byte(text))
}

func (t *responsesWriter) reasoningItem(it *openItem) map[string]any {
	return map[string]any{"id": it.id, "type": "reasoning", "encrypted_content": EncryptedReasoning(it.text.String()),
		"summary": []any{map[string]any{"type": "summary_text", "text": it.text.String()}}}
}

func (t *responsesWriter) messageItem(it *openItem) map[string]any {
	return map[string]any{"id": it.id, "type": "message", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": it.text.String(), "annotations": []any{}}}}
}

func (t *responsesWriter) callItem(it *openItem) map[string]any {
	return map[string]any{"id": it.id, "type": "function_call", "status": "completed", "call_id": it.callID, "name": it.name, "arguments": it.text.String()}
}

// complete sends the final response: completed, or incomplete or failed by the
// finish_reason, with the usage in the Responses API's names.
func (t *responsesWriter) complete() error {
	if err := t.closeAll(); err != nil {
		return err
	}
	var output []any
	all := append([]*openItem{}, t.callOrder...)
	for _, it := range []*openItem{t.reasoning, t.message} {
		if it != nil {
			all = append(all, it)
		}
	}
	for i := range t.next {
		for _, it := range all {
			if it.index != i {
				continue
			}
			switch {
			case it == t.reasoning:
				output = append(output, t.reasoningItem(it))
			case it == t.message:
				output = append(output, t.messageItem(it))
			default:
				output = append(output, t.callItem(it))
			}
		}
	}
	resp := map[string]any{"id": "resp_scripted", "object": "response", "model": Model, "status": "completed", "output": output,
		"usage": responsesUsage(t.usage), "error": nil, "incomplete_details": nil}
	typ := "response.completed"
	switch t.finish {
	case "", "stop", "tool_calls", "function_call":
	case "error":
		typ, resp["status"] = "response.failed", "failed"
		resp["error"] = map[string]any{"code": "server_error", "message": "the scripted stream ended with finish_reason error"}
	case "length":
		typ, resp["status"] = "response.incomplete", "incomplete"
		resp["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	default:
		typ, resp["status"] = "response.incomplete", "incomplete"
		resp["incomplete_details"] = map[string]any{"reason": t.finish}
	}
	return t.event(map[string]any{"type": typ, "response": resp})
}

// responsesUsage renames a chat-completions usage: prompt and completion tokens, cached
// tokens (top-level or in prompt_tokens_details), reasoning tokens.
func responsesUsage(u map[string]any) any {
	if u == nil {
		return nil
	}
	num := func(v any) float64 { f, _ := v.(float64); return f }
	cached := num(u["cached_tokens"])
	if d, ok := u["prompt_tokens_details"].(map[string]any); ok && cached == 0 {
		cached = num(d["cached_tokens"])
	}
	reasoning := 0.0
	if d, ok := u["completion_tokens_details"].(map[string]any); ok {
		reasoning = num(d["reasoning_tokens"])
	}
	in, out := num(u["prompt_tokens"]), num(u["completion_tokens"])
	return map[string]any{
		"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": cached},
		"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": reasoning},
		"total_tokens": in + out,
	}
}

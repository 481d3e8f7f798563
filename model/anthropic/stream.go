package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kimi-run/kimi-run/model"
)

// anthropicEvent is one data line of a Messages API stream. The event's name is also in
// the data (`type`), so the `event:` lines, which the SSE filter drops, are not needed.
type anthropicEvent struct {
	Type    string `json:"type"`
	Message *struct {
		Usage *anthropicUsage `json:"usage"`
	} `json:"message"`
	Index        int             `json:"index"`
	ContentBlock json.RawMessage `json:"content_block"`
	Delta        json.RawMessage `json:"delta"`
	Usage        *anthropicUsage `json:"usage"`
}

// anthropicBlock is a content block being streamed.
type anthropicBlock struct {
	kind string // text, thinking, redacted_thinking, tool_use, or another kind kept raw
	text strings.Builder
	sig  strings.Builder
	// data is a redacted_thinking block's opaque content.
	data string
	// id, name, args, input: a tool_use block. args collects input_json_delta pieces;
	// input is the object content_block_start carried, used when no piece came.
	id, name string
	args     strings.Builder
	pieces   bool
	input    json.RawMessage
	// other is a block of a kind kimi-run does not know, as it started.
	other block
	// call is the tool call once the block has ended; done says it has.
	call model.CallSpec
	done bool
}

// anthropicReader folds a Messages API stream into a Reply. One reader may read several
// responses: a turn the API paused (stop_reason pause_turn) goes on in a new request, and
// its blocks and usage add up.
type anthropicReader struct {
	h     model.Handler
	size  *model.ReplyMeter
	newID func() string

	blocks  []*anthropicBlock
	current map[int]*anthropicBlock // this response's blocks by index
	usedIDs map[string]bool

	usage model.TokenUsage // of the responses before this one
	now   anthropicUsage
	stop  string // this response's stop_reason
	// stopped says a stop_reason came; ended that message_stop did.
	stopped, ended bool
	errDoc         []byte
}

func newAnthropicReader(h model.Handler, size *model.ReplyMeter, newID func() string) *anthropicReader {
	return &anthropicReader{h: h, size: size, newID: newID, usedIDs: map[string]bool{}}
}

// next prepares for the next response of the same turn.
func (r *anthropicReader) next() {
	r.usage = r.totalUsage()
	r.now, r.stop, r.stopped, r.ended, r.current = anthropicUsage{}, "", false, false, nil
}

// add reads one data line.
func (r *anthropicReader) add(line []byte) error {
	var ev anthropicEvent
	if err := json.Unmarshal(line, &ev); err != nil {
		return fmt.Errorf("decode stream event: %w", err)
	}
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			r.now.merge(ev.Message.Usage)
		}
	case "content_block_start":
		return r.start(ev.Index, ev.ContentBlock)
	case "content_block_delta":
		return r.delta(ev.Index, ev.Delta)
	case "content_block_stop":
		if b := r.current[ev.Index]; b != nil {
			r.end(b)
		}
	case "message_delta":
		var d struct {
			StopReason *string `json:"stop_reason"`
		}
		_ = json.Unmarshal(ev.Delta, &d)
		if d.StopReason != nil && *d.StopReason != "" {
			r.stop, r.stopped = *d.StopReason, true
		}
		r.now.merge(ev.Usage)
	case "message_stop":
		r.ended = true
	case "error":
		if r.errDoc == nil {
			r.errDoc = append([]byte(nil), bytes.TrimSpace(line)...)
		}
	}
	// Unknown event types (and ping) are ignored, as the API's documentation asks.
	return nil
}

// whole reads a message sent whole, as a server that ignores stream: true answers: its
// blocks, usage and stop reason as if they had streamed. An error document is the error.
func (r *anthropicReader) whole(doc []byte) error {
	var m struct {
		Type       string            `json:"type"`
		Content    []json.RawMessage `json:"content"`
		StopReason *string           `json:"stop_reason"`
		Usage      *anthropicUsage   `json:"usage"`
		Error      json.RawMessage   `json:"error"`
	}
	if err := json.Unmarshal(doc, &m); err != nil {
		return fmt.Errorf("decode message: %w", err)
	}
	if m.Type == "error" || len(m.Error) > 0 {
		return model.ProviderErrorOf(0, doc, nil)
	}
	if m.Type != "message" {
		return fmt.Errorf("%w: a JSON document that is not a message", model.ErrIncompleteStream)
	}
	for i, raw := range m.Content {
		if err := r.start(i, raw); err != nil {
			return err
		}
		r.end(r.current[i])
	}
	r.now.merge(m.Usage)
	if m.StopReason != nil {
		r.stop = *m.StopReason
	}
	r.stopped = true
	return nil
}

func (r *anthropicReader) start(index int, raw json.RawMessage) error {
	var cb struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(raw, &cb); err != nil {
		return fmt.Errorf("decode content block: %w", err)
	}
	if err := r.size.Add(len(raw)); err != nil {
		return err
	}
	b := &anthropicBlock{kind: cb.Type}
	switch cb.Type {
	case "text":
		r.text(b, cb.Text)
	case "thinking":
		r.think(b, cb.Thinking)
		b.sig.WriteString(cb.Signature)
	case "redacted_thinking":
		b.data = cb.Data
	case "tool_use":
		b.id, b.name, b.input = cb.ID, cb.Name, cb.Input
	default:
		if bs := decodeBlocks(append(append(json.RawMessage("["), raw...), ']')); len(bs) == 1 {
			b.other = bs[0]
		}
	}
	if r.current == nil {
		r.current = map[int]*anthropicBlock{}
	}
	if prev := r.current[index]; prev != nil {
		r.end(prev) // an index reused without a stop: the old block is over
	}
	r.current[index] = b
	r.blocks = append(r.blocks, b)
	return nil
}

func (r *anthropicReader) delta(index int, raw json.RawMessage) error {
	var d struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return fmt.Errorf("decode content block delta: %w", err)
	}
	b := r.current[index]
	if b == nil || b.done {
		return nil // a delta for a block that never started: nothing to add it to
	}
	if b.other != nil {
		// What a block of an unknown kind keeps is its delta's text, about the delta's size.
		if err := r.size.Add(len(raw)); err != nil {
			return err
		}
		b.grow(raw, d.PartialJSON)
		return nil
	}
	if err := r.size.Add(len(d.Text) + len(d.Thinking) + len(d.Signature) + len(d.PartialJSON)); err != nil {
		return err
	}
	switch d.Type {
	case "text_delta":
		r.text(b, d.Text)
	case "thinking_delta":
		r.think(b, d.Thinking)
	case "signature_delta":
		b.sig.WriteString(d.Signature)
	case "input_json_delta":
		b.args.WriteString(d.PartialJSON)
		b.pieces = true
	}
	// citations_delta and new kinds add nothing kimi-run shows or sends back.
	return nil
}

func (r *anthropicReader) text(b *anthropicBlock, s string) {
	if s == "" || b.kind != "text" {
		return
	}
	b.text.WriteString(s)
	if r.h.Text != nil {
		r.h.Text(s)
	}
}

func (r *anthropicReader) think(b *anthropicBlock, s string) {
	if s == "" || b.kind != "thinking" {
		return
	}
	b.text.WriteString(s)
	if r.h.Thinking != nil {
		r.h.Thinking(s)
	}
}

// grow adds a delta to a block of a kind kimi-run does not know, so that it goes back
// whole: input_json_delta pieces make its input (server_tool_use streams its input so),
// and any other delta's text fields are appended to the block's fields of the same name
// (compaction_delta's content, for one). Deltas of other shapes (citations) are dropped.
func (b *anthropicBlock) grow(raw json.RawMessage, partial string) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return
	}
	if model.JSONText(fields["type"]) == "input_json_delta" {
		b.args.WriteString(partial)
		b.pieces = true
		return
	}
	for k, v := range fields {
		var s string
		if k == "type" || json.Unmarshal(v, &s) != nil {
			continue
		}
		prev, _ := b.other[k].(string)
		b.other[k] = prev + s
	}
}

// end closes a block; a tool call is complete and handed out.
func (r *anthropicReader) end(b *anthropicBlock) {
	if b.done {
		return
	}
	b.done = true
	if b.other != nil && b.pieces {
		if input := decodeBlocks(json.RawMessage("[" + b.args.String() + "]")); len(input) == 1 {
			b.other["input"] = input[0]
		}
	}
	if b.kind != "tool_use" {
		return
	}
	args := b.args.String()
	if !b.pieces && len(b.input) > 0 {
		var compact bytes.Buffer
		if json.Compact(&compact, b.input) == nil {
			args = compact.String()
		}
	}
	id := b.id
	if id == "" || r.usedIDs[id] {
		// Results are matched to calls by id: every call of a turn needs its own.
		id = r.newID()
	}
	r.usedIDs[id] = true
	b.call = model.CallSpec{ID: id, Name: b.name, Arguments: args}
	if r.h.ToolCall != nil {
		r.h.ToolCall(b.call)
	}
}

// finished reports whether this response ended as a whole message: a stop_reason, or
// message_stop from a server that sent none.
func (r *anthropicReader) finished() bool { return r.stopped || r.ended }

// calls returns the tool calls of the complete tool_use blocks, in order.
func (r *anthropicReader) calls() []model.CallSpec {
	var out []model.CallSpec
	for _, b := range r.blocks {
		if b.kind == "tool_use" && b.done {
			out = append(out, b.call)
		}
	}
	return out
}

// closeAll ends every open block: the response is over.
func (r *anthropicReader) closeAll() {
	for _, b := range r.blocks {
		r.end(b)
	}
}

package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The walkwire dialect (docs/design.md's walkthrough "Add a wire protocol"): a request to
// /v1/walkwire is answered from the script with each chat-completions chunk as flat
// events: reasoning → {"thinking"}, content → {"text"}, a tool-call delta → {"call"} (by
// index), the finish_reason → {"finish"}, the usage → {"usage"}; [DONE] is dropped.
var walkwireDialect = dialect{path: "/v1/walkwire", match: func(p string) bool { return p == "/v1/walkwire" },
	render: func(r Response) Response { return r.translated(walkwireTranslator{}) }}

type walkwireTranslator struct{}

func (walkwireTranslator) beforeFlood() []byte { return nil }
func (walkwireTranslator) beforeEnd() []byte   { return nil }
func (walkwireTranslator) end() []byte         { return nil }

func (walkwireTranslator) events(data []byte) []byte {
	return chatEvents(data, chatHandlers{done: func(*bytes.Buffer) {}, chunk: func(out *bytes.Buffer, c chunk) {
		emit := func(v map[string]any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(out, "data: %s\n\n", b)
		}
		u := c.Usage
		for _, ch := range c.Choices {
			d := ch.Delta
			if s := d.thought(); s != "" {
				emit(map[string]any{"thinking": s})
			}
			if d.Content != nil && *d.Content != "" {
				emit(map[string]any{"text": *d.Content})
			}
			for _, tc := range d.ToolCalls {
				emit(map[string]any{"call": map[string]any{"index": tc.Index, "id": tc.ID, "name": tc.Function.Name, "arguments": tc.Function.Arguments}})
			}
			if ch.Usage != nil {
				u = ch.Usage
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				emit(map[string]any{"finish": *ch.FinishReason})
			}
		}
		if c.XGroq != nil && c.XGroq.Usage != nil {
			u = c.XGroq.Usage
		}
		if u != nil {
			cached := 0
			if u.CachedTop != nil {
				cached = *u.CachedTop
			} else if u.Details != nil {
				cached = u.Details.Cached
			}
			emit(map[string]any{"usage": map[string]any{"input": u.Prompt, "output": u.Completion, "cached": cached}})
		}
	}})
}

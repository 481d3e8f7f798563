package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/kimi-run/kimi-run/model/cassette"
)

// ReadRequest reads a Messages API request body (a top-level system, and user and
// assistant turns of content blocks) as the conversation a strict replay compares: the
// system blocks as the system message (whose text is not compared); an assistant turn's
// text, thinking text and tool_use blocks as an assistant message; a user turn's
// tool_result blocks as tool messages (their text as the content, compared only when
// exact) and its text as a user message. Signatures, redacted thinking, cache breakpoints
// and blocks of other kinds are not compared: they are the provider's, or placement.
func ReadRequest(body []byte) ([]cassette.Message, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, err
	}
	type block struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
	}
	type turn struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	blocks := func(raw json.RawMessage) []block {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return []block{{Type: "text", Text: s}}
		}
		var bs []block
		_ = json.Unmarshal(raw, &bs)
		return bs
	}
	text := func(raw json.RawMessage) string {
		var b strings.Builder
		for _, x := range blocks(raw) {
			if x.Type == "text" {
				b.WriteString(x.Text)
			}
		}
		return b.String()
	}
	var turns []turn
	if err := json.Unmarshal(top["messages"], &turns); err != nil {
		return nil, err
	}
	var w []cassette.Message
	if raw, ok := top["system"]; ok && string(raw) != "null" {
		w = append(w, cassette.Message{Role: "system"})
	}
	for _, t := range turns {
		if t.Role == "assistant" {
			var said, thought strings.Builder
			m := cassette.Message{Role: "assistant"}
			for _, b := range blocks(t.Content) {
				switch b.Type {
				case "text":
					said.WriteString(b.Text)
				case "thinking":
					thought.WriteString(b.Thinking)
				case "tool_use":
					var call cassette.Call
					call.ID, call.Function.Name, call.Function.Arguments = b.ID, b.Name, string(b.Input)
					m.ToolCalls = append(m.ToolCalls, call)
				}
			}
			m.Content, _ = json.Marshal(said.String())
			m.Reasoning = thought.String()
			w = append(w, m)
			continue
		}
		var said []string
		for _, b := range blocks(t.Content) {
			switch b.Type {
			case "tool_result":
				cont, _ := json.Marshal(text(b.Content))
				w = append(w, cassette.Message{Role: "tool", ToolCallID: b.ToolUseID, Content: cont})
			case "text":
				said = append(said, b.Text)
			}
		}
		if said != nil {
			cont, _ := json.Marshal(strings.Join(said, "\n"))
			w = append(w, cassette.Message{Role: "user", Content: cont})
		}
	}
	return w, nil
}

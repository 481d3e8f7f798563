package scripted

import (
	"encoding/json"
	"strings"
)

// anthropicMessages is the conversation of a Messages API request in chat-completions'
// shape, so that a test reads what went back the same way whatever the protocol: the system
// blocks as a system message; a user turn's tool_result blocks as tool messages
// (tool_call_id, content: the result's text) and its text as a user message; an assistant
// turn as an assistant message (content, reasoning_content from its thinking blocks,
// tool_calls with the input as JSON text), with its blocks as sent under "blocks"
// (signatures and all).
func anthropicMessages(body map[string]any) []map[string]any {
	var out []map[string]any
	if sys := blocksText(body["system"], "text"); sys != "" {
		out = append(out, map[string]any{"role": "system", "content": sys})
	}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		blocks := asBlocks(msg["content"])
		if msg["role"] == "assistant" {
			am := map[string]any{"role": "assistant", "content": blocksText(msg["content"], "text"), "blocks": msg["content"]}
			if th := blocksText(msg["content"], "thinking"); th != "" {
				am["reasoning_content"] = th
			}
			var calls []any
			for _, b := range blocks {
				if b["type"] != "tool_use" {
					continue
				}
				args, _ := json.Marshal(b["input"])
				calls = append(calls, map[string]any{"id": b["id"], "type": "function",
					"function": map[string]any{"name": b["name"], "arguments": string(args)}})
			}
			if calls != nil {
				am["tool_calls"] = calls
			}
			out = append(out, am)
			continue
		}
		var text []string
		for _, b := range blocks {
			switch b["type"] {
			case "tool_result":
				out = append(out, map[string]any{"role": "tool", "tool_call_id": b["tool_use_id"], "content": blocksText(b["content"], "text")})
			case "text":
				s, _ := b["text"].(string)
				text = append(text, s)
			}
		}
		if text != nil {
			out = append(out, map[string]any{"role": "user", "content": strings.Join(text, "\n")})
		}
	}
	return out
}

// asBlocks reads a content field: a list of blocks, or a string as one text block.
func asBlocks(v any) []map[string]any {
	if s, ok := v.(string); ok {
		return []map[string]any{{"type": "text", "text": s}}
	}
	list, _ := v.([]any)
	out := make([]map[string]any, 0, len(list))
	for _, b := range list {
		if bm, ok := b.(map[string]any); ok {
			out = append(out, bm)
		}
	}
	return out
}

// blocksText joins the text of a content's blocks of one kind (text, or thinking).
func blocksText(v any, kind string) string {
	var b strings.Builder
	for _, x := range asBlocks(v) {
		if x["type"] != kind {
			continue
		}
		s, _ := x[kind].(string)
		b.WriteString(s)
	}
	return b.String()
}

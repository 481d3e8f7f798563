package scripted

import "strings"

// responsesMessages gives a Responses request's input items back as chat-completions
// messages, so a test asserts what went back the same way for every protocol: an
// assistant turn's reasoning, message and function_call items are one assistant message
// (its calls as tool_calls, its reasoning items kept raw under "reasoning_items"), a
// function_call_output is a tool message.
func responsesMessages(body map[string]any) []map[string]any {
	items, _ := body["input"].([]any)
	var out []map[string]any
	var turn map[string]any
	flush := func() {
		if turn != nil {
			out = append(out, turn)
			turn = nil
		}
	}
	assistant := func() map[string]any {
		if turn == nil {
			turn = map[string]any{"role": "assistant", "content": ""}
		}
		return turn
	}
	for _, raw := range items {
		it, _ := raw.(map[string]any)
		switch it["type"] {
		case "reasoning":
			a := assistant()
			list, _ := a["reasoning_items"].([]any)
			a["reasoning_items"] = append(list, it)
		case "function_call":
			a := assistant()
			calls, _ := a["tool_calls"].([]any)
			a["tool_calls"] = append(calls, map[string]any{"id": it["call_id"], "type": "function",
				"function": map[string]any{"name": it["name"], "arguments": it["arguments"]}})
		case "function_call_output":
			flush()
			out = append(out, map[string]any{"role": "tool", "tool_call_id": it["call_id"], "content": it["output"]})
		default: // a message item, with or without "type"
			if it["role"] == "assistant" {
				a := assistant()
				a["content"] = a["content"].(string) + partsText(it["content"])
				continue
			}
			flush()
			out = append(out, map[string]any{"role": it["role"], "content": it["content"]})
		}
	}
	flush()
	return out
}

// partsText is a content given as a string or as a list of parts with text.
func partsText(c any) string {
	if s, ok := c.(string); ok {
		return s
	}
	var b strings.Builder
	list, _ := c.([]any)
	for _, p := range list {
		if m, ok := p.(map[string]any); ok {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

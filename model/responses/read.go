package responses

import (
	"encoding/json"
	"strings"

	"github.com/kimi-run/kimi-run/model/cassette"
)

// ReadRequest reads a Responses API request body (input items) as the conversation a
// strict replay compares: system and user messages as themselves, an assistant turn's
// items (reasoning, its text, function calls) as one assistant message, a
// function_call_output as the tool message answering its call. The reasoning compared is
// the summaries' text: encrypted reasoning is the provider's, different in every
// recording.
func ReadRequest(body []byte) ([]cassette.Message, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, err
	}
	type item struct {
		Type      string          `json:"type"`
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		CallID    string          `json:"call_id"`
		Name      string          `json:"name"`
		Arguments string          `json:"arguments"`
		Output    json.RawMessage `json:"output"`
		Summary   []struct {
			Text string `json:"text"`
		} `json:"summary"`
	}
	var items []item
	if err := json.Unmarshal(top["input"], &items); err != nil {
		// input may be one string: a single user message.
		var s string
		if json.Unmarshal(top["input"], &s) != nil {
			return nil, err
		}
		c, _ := json.Marshal(s)
		return []cassette.Message{{Role: "user", Content: c}}, nil
	}
	var w []cassette.Message
	var turn *cassette.Message
	var text, thought strings.Builder
	flush := func() {
		if turn != nil {
			turn.Content, _ = json.Marshal(text.String())
			turn.Reasoning = thought.String()
			w = append(w, *turn)
			turn = nil
			text.Reset()
			thought.Reset()
		}
	}
	assistant := func() *cassette.Message {
		if turn == nil {
			turn = &cassette.Message{Role: "assistant"}
		}
		return turn
	}
	for _, it := range items {
		switch {
		case it.Type == "reasoning":
			assistant()
			for _, s := range it.Summary {
				thought.WriteString(s.Text)
			}
		case it.Type == "function_call":
			var call cassette.Call
			call.ID, call.Function.Name, call.Function.Arguments = it.CallID, it.Name, it.Arguments
			assistant().ToolCalls = append(assistant().ToolCalls, call)
		case it.Type == "function_call_output":
			flush()
			w = append(w, cassette.Message{Role: "tool", ToolCallID: it.CallID, Content: it.Output})
		case it.Role == "assistant":
			assistant()
			text.WriteString(contentText(it.Content))
		default:
			flush()
			w = append(w, cassette.Message{Role: it.Role, Content: it.Content})
		}
	}
	flush()
	return w, nil
}

// contentText is an assistant message's content: a string, or output_text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

package cassette

import (
	"encoding/json"
	"strings"
)

// responsesWire reads a Responses API request body (input items) as the conversation a
// strict replay compares: system and user messages as themselves, an assistant turn's
// items (reasoning, its text, function calls) as one assistant message, a
// function_call_output as the tool message answering its call. The reasoning compared is
// the summaries' text: encrypted reasoning is the provider's, different in every
// recording.
func responsesWire(top map[string]json.RawMessage) (wire, error) {
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
			return wire{}, err
		}
		c, _ := json.Marshal(s)
		return wire{Messages: []wireMsg{{Role: "user", Content: c}}}, nil
	}
	var w wire
	var turn *wireMsg
	var text, thought strings.Builder
	flush := func() {
		if turn != nil {
			turn.Content, _ = json.Marshal(text.String())
			turn.Reasoning = thought.String()
			w.Messages = append(w.Messages, *turn)
			turn = nil
			text.Reset()
			thought.Reset()
		}
	}
	assistant := func() *wireMsg {
		if turn == nil {
			turn = &wireMsg{Role: "assistant"}
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
			var call wireCall
			call.ID, call.Function.Name, call.Function.Arguments = it.CallID, it.Name, it.Arguments
			assistant().ToolCalls = append(assistant().ToolCalls, call)
		case it.Type == "function_call_output":
			flush()
			w.Messages = append(w.Messages, wireMsg{Role: "tool", ToolCallID: it.CallID, Content: it.Output})
		case it.Role == "assistant":
			assistant()
			text.WriteString(outputText(it.Content))
		default:
			flush()
			w.Messages = append(w.Messages, wireMsg{Role: it.Role, Content: it.Content})
		}
	}
	flush()
	return w, nil
}

// outputText is an assistant message's content: a string, or output_text parts.
func outputText(raw json.RawMessage) string {
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

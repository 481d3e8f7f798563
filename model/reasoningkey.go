package model

import (
	"encoding/json"
)

// A provider's reasoning_key (Kimi CLI's openai_legacy setting) names the one field of a
// message that carries the model's reasoning, both ways: read from the stream's deltas and
// sent back on the assistant messages that had reasoning, as Kimi CLI's OpenAILegacy does.
// An empty key turns the round trip off: no reasoning is read or sent. Without a key
// (Config.ReasoningKey nil) the client reads every field it knows and sends the reasoning
// back the way it came (chunk.go, request.go).

// keepReasoning makes c's deltas carry reasoning in the configured field only: the known
// fields a key does not name are cleared, and a field of another name is read from the
// raw line into the reasoning_content slot, which the reader then treats as the reasoning.
func keepReasoning(key string, c *rawChunk, line []byte) {
	var custom []string
	if key != "" && key != ReasoningContent && key != ReasoningText && key != ReasoningDetails {
		custom = customReasoning(key, line)
	}
	for i := range c.Choices {
		d := &c.Choices[i].Delta
		rc, rt, rd := d.ReasoningContent, d.Reasoning, d.ReasoningDetails
		d.ReasoningContent, d.Reasoning, d.ReasoningDetails = nil, nil, nil
		switch key {
		case ReasoningContent:
			d.ReasoningContent = rc
		case ReasoningText:
			d.Reasoning = rt
		case ReasoningDetails:
			d.ReasoningDetails = rd
		case "":
		default:
			if i < len(custom) && custom[i] != "" {
				s := custom[i]
				d.ReasoningContent = &s
			}
		}
	}
}

// customReasoning reads the string field key of each choice's delta in a raw chunk.
func customReasoning(key string, line []byte) []string {
	var c struct {
		Choices []struct {
			Delta map[string]json.RawMessage `json:"delta"`
		} `json:"choices"`
	}
	if json.Unmarshal(line, &c) != nil {
		return nil
	}
	out := make([]string, len(c.Choices))
	for i, ch := range c.Choices {
		var s string
		if raw, ok := ch.Delta[key]; ok && json.Unmarshal(raw, &s) == nil {
			out[i] = s
		}
	}
	return out
}

// reasoningByKey is the field an assistant message's reasoning goes back in under a
// configured key: none for an empty key or no reasoning.
func reasoningByKey(key, reasoning string) map[string]json.RawMessage {
	if key == "" || reasoning == "" {
		return nil
	}
	text, _ := json.Marshal(reasoning)
	return map[string]json.RawMessage{key: text}
}

package model

import (
	"encoding/json"

	"github.com/kimi-run/kimi-run/event"
)

// Role of a message in the conversation.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one entry of the conversation sent to the model.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// Reasoning is the model's reasoning_content. Thinking models require it back on
	// assistant messages that carry tool calls.
	Reasoning string `json:"reasoning_content,omitempty"`
	// ReasoningField is the field the provider sent the reasoning in, and the one it goes
	// back in (ReasoningContent when empty).
	ReasoningField string `json:"reasoning_field,omitempty"`
	// ReasoningDetails are the provider's reasoning_details blocks, sent back as received.
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"`
	ToolCalls        []CallSpec      `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
	// Name is the tool name on tool messages.
	Name string `json:"name,omitempty"`
	// Images are the images and videos of the message: attached to a user message
	// (--image), or brought by a tool's result (ReadMediaFile). The session store keeps
	// them as content parts, as Kimi CLI does (session/record.go).
	Images []event.Image `json:"-"`
}

// CallSpec is a tool call as the model made it.
type CallSpec struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the raw arguments text the model streamed. It may not be valid JSON.
	Arguments string `json:"arguments"`
}

// ArgsJSON returns the call's arguments for events: the JSON object when the model sent
// one, otherwise the raw text as a JSON string, so the event stays valid JSON.
func (c CallSpec) ArgsJSON() json.RawMessage {
	if a, ok := ParseArgs(c.Arguments); ok {
		return a
	}
	s, _ := json.Marshal(c.Arguments)
	return s
}

// ParseArgs returns the arguments as a JSON object; empty text counts as {}.
func ParseArgs(s string) (json.RawMessage, bool) {
	if len(s) == 0 {
		return json.RawMessage("{}"), true
	}
	b := []byte(s)
	if !json.Valid(b) {
		return nil, false
	}
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return b, true
		}
		return nil, false
	}
	return nil, false
}

// EstimateTokens guesses the token count of messages: about four characters a token.
func EstimateTokens(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + len(m.Reasoning) + 4*MediaTokens*len(m.Images)
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Arguments)
		}
	}
	return n / 4
}

package agent

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
	// Images are attached to a user message (--image). They are sent, not kept in the
	// session file: a resumed session has the text only.
	Images []event.Image `json:"-"`
}

// CallSpec is a tool call as the model made it.
type CallSpec struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the raw arguments text the model streamed. It may not be valid JSON.
	Arguments string `json:"arguments"`
}

// argsObject returns the call's arguments for events: the JSON object when the model sent
// one, otherwise the raw text as a JSON string, so the event stays valid JSON.
func (c CallSpec) argsObject() json.RawMessage {
	if a, ok := parseArgs(c.Arguments); ok {
		return a
	}
	s, _ := json.Marshal(c.Arguments)
	return s
}

// parseArgs returns the arguments as a JSON object; empty text counts as {}.
func parseArgs(s string) (json.RawMessage, bool) {
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

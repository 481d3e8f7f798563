package model

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"
)

// request builds the chat-completions request, and the fields go-openai's message struct
// has no room for (reasoning_details, reasoning), by message index, for the transport to
// add to the body.
func (o *OpenAI) request(req Request) (openai.ChatCompletionRequest, map[int]map[string]json.RawMessage) {
	r := openai.ChatCompletionRequest{
		Model:               o.cfg.Model,
		Stream:              true,
		StreamOptions:       &openai.StreamOptions{IncludeUsage: true},
		MaxCompletionTokens: req.MaxTokens,
	}
	var extra map[int]map[string]json.RawMessage
	r.Messages = make([]openai.ChatCompletionMessage, 0, len(req.Messages))
	for i, m := range req.Messages {
		msg, fields := o.message(m)
		r.Messages = append(r.Messages, msg)
		if len(fields) > 0 {
			if extra == nil {
				extra = map[int]map[string]json.RawMessage{}
			}
			extra[i] = fields
		}
	}
	if !req.NoTools {
		for _, t := range req.Tools {
			r.Tools = append(r.Tools, openai.Tool{
				Type: openai.ToolTypeFunction,
				Function: &openai.FunctionDefinition{
					Name:        t.Name(),
					Description: t.Description(),
					// json.RawMessage, not []byte: a byte slice would be sent as base64.
					Parameters: json.RawMessage(t.Schema()),
				},
			})
		}
	}
	return r, extra
}

// message converts one message. Reasoning goes back in the field it came in: Moonshot's
// reasoning_content (the default, on messages with tool calls, which thinking models
// require), OpenRouter's reasoning_details exactly as received (on every assistant message
// that has them: they may be signed or encrypted), OpenRouter's plain reasoning, or
// Mistral's thinking part in front of the content (on every assistant message that had one).
func (o *OpenAI) message(m Message) (openai.ChatCompletionMessage, map[string]json.RawMessage) {
	out := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
	if len(m.Images) > 0 {
		out.Content, out.MultiContent = "", imageParts(m)
	}
	var extra map[string]json.RawMessage
	switch m.Role {
	case RoleTool:
		if out.Content == "" {
			// An empty content field is dropped by omitempty and some servers reject that.
			out.Content = "(no output)"
		}
	case RoleAssistant:
		for _, c := range m.ToolCalls {
			out.ToolCalls = append(out.ToolCalls, openai.ToolCall{
				ID:       c.ID,
				Type:     openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments},
			})
		}
		switch {
		case m.ReasoningField == ReasoningDetails && json.Valid(m.ReasoningDetails):
			extra = map[string]json.RawMessage{ReasoningDetails: m.ReasoningDetails}
		case m.ReasoningField == ReasoningParts && m.Reasoning != "":
			// Mistral reads its thinking back as a part of the content, before the text.
			extra = map[string]json.RawMessage{"content": thinkingContent(m.Reasoning, m.Content)}
		case m.ReasoningField == ReasoningText && len(m.ToolCalls) > 0 && m.Reasoning != "":
			text, _ := json.Marshal(m.Reasoning)
			extra = map[string]json.RawMessage{ReasoningText: text}
		case len(m.ToolCalls) > 0:
			out.ReasoningContent = m.Reasoning
			if out.ReasoningContent == "" && thinkingOn(o.cfg.Thinking) {
				// omitempty would drop "", and thinking models insist on the field.
				out.ReasoningContent = " "
			}
		}
	}
	return out, extra
}

// thinkingOn reports whether the thinking switch is set and on.
func thinkingOn(t *bool) bool { return t != nil && *t }

// thinkingField is Kimi's switch as chat completions carry it: {"type":"enabled"} or
// {"type":"disabled"}; nil when the switch is unset.
func thinkingField(t *bool) json.RawMessage {
	switch {
	case t == nil:
		return nil
	case *t:
		return json.RawMessage(`{"type":"enabled"}`)
	}
	return json.RawMessage(`{"type":"disabled"}`)
}

package model

import (
	"encoding/json"

	"github.com/kimi-run/kimi-run/event"
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
	add := func(msg openai.ChatCompletionMessage, fields map[string]json.RawMessage) {
		if len(fields) > 0 {
			if extra == nil {
				extra = map[int]map[string]json.RawMessage{}
			}
			extra[len(r.Messages)] = fields
		}
		r.Messages = append(r.Messages, msg)
	}
	// Media of tool results go inline to an endpoint that reads them there (Moonshot's, as
	// Kimi CLI sends them); to others, which take media from the user only (OpenAI's API
	// refuses an image in a tool message), in a user message right after the results.
	var pending []event.Image
	flush := func() {
		if len(pending) > 0 {
			add(openai.ChatCompletionMessage{Role: RoleUser, Content: toolMediaNote},
				map[string]json.RawMessage{"content": mediaContent(toolMediaNote, pending)})
			pending = nil
		}
	}
	r.Messages = make([]openai.ChatCompletionMessage, 0, len(req.Messages))
	for _, m := range req.Messages {
		if m.Role != RoleTool {
			flush()
		}
		msg, fields := o.message(m)
		if m.Role == RoleTool && len(m.Images) > 0 {
			if o.cfg.MediaInToolResults {
				if fields == nil {
					fields = map[string]json.RawMessage{}
				}
				fields["content"] = mediaContent(msg.Content, m.Images)
			} else {
				pending = append(pending, m.Images...)
			}
		}
		add(msg, fields)
	}
	flush()
	if !req.NoTools && len(req.Tools) > 0 {
		// A mark where the tools go: the transport puts their encoding there (toolDefs).
		r.Tools = []openai.Tool{{Type: toolsMark}}
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
	if len(m.Images) > 0 && m.Role == RoleUser {
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
		if k := o.cfg.ReasoningKey; k != nil {
			// A configured reasoning_key: the reasoning goes back in that field, on every
			// assistant message that had some, or nowhere for "".
			extra = reasoningByKey(*k, m.Reasoning)
			break
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
			if out.ReasoningContent == "" && ThinkingOn(o.cfg.Thinking) {
				// omitempty would drop "", and thinking models insist on the field.
				out.ReasoningContent = " "
			}
		}
	}
	return out, extra
}

// ThinkingOn reports whether the thinking switch is set and on.
func ThinkingOn(t *bool) bool { return t != nil && *t }

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

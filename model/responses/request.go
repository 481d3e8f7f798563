package responses

import (
	"encoding/base64"
	"encoding/json"

	"github.com/kimi-run/kimi-run/model"
)

// ReasoningField is the reasoning field of a Responses API reply: ReasoningDetails holds
// the reply's reasoning items (summary, encrypted_content or content, without ids), which
// go back as input items of the next request.
const ReasoningField = "responses_items"

// responsesBody is a Responses API request (POST /responses). The conversation goes in
// whole every time: store is false, so nothing is kept at the provider and no
// previous_response_id is used, as in Kimi CLI.
type responsesBody struct {
	Model           string            `json:"model"`
	Input           []json.RawMessage `json:"input"`
	Tools           []responsesTool   `json:"tools,omitempty"`
	Stream          bool              `json:"stream"`
	Store           bool              `json:"store"`
	MaxOutputTokens int               `json:"max_output_tokens,omitempty"`
	Reasoning       *responsesEffort  `json:"reasoning,omitempty"`
	Include         []string          `json:"include,omitempty"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

type responsesEffort struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary"`
}

// Input items, in the shapes the API documents.
type (
	inputMessage struct {
		Role    string `json:"role"`
		Content any    `json:"content"` // a string, or a list of input parts
	}
	inputPart struct {
		Type     string `json:"type"`
		Text     string `json:"text,omitempty"`
		ImageURL string `json:"image_url,omitempty"`
		Detail   string `json:"detail,omitempty"`
	}
	outputMessage struct {
		Type    string       `json:"type"`
		Role    string       `json:"role"`
		Content []outputText `json:"content"`
	}
	outputText struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Annotations []any  `json:"annotations"`
	}
	functionCall struct {
		Type      string `json:"type"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	functionOutput struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Output string `json:"output"`
	}
)

// request builds the body. With the thinking switch on, it asks for a reasoning effort
// (Kimi's "high"), summaries to show as thinking, and the encrypted reasoning, which goes
// back on the next request so the model keeps its chain of thought between tool calls
// (store is false: the provider keeps nothing). Off or unset, it asks for none of these,
// as Kimi does: a model that does not reason would refuse them.
func (r *Client) request(req model.Request) ([]byte, error) {
	b := responsesBody{Model: r.cfg.Model, Stream: true, Input: []json.RawMessage{}, MaxOutputTokens: req.MaxTokens}
	if model.ThinkingOn(r.cfg.Thinking) {
		b.Reasoning = &responsesEffort{Effort: "high", Summary: "auto"}
		b.Include = []string{"reasoning.encrypted_content"}
	}
	for _, m := range model.ToolMediaAsUser(req.Messages, model.ImagesOnly) {
		items, err := inputItems(m)
		if err != nil {
			return nil, err
		}
		b.Input = append(b.Input, items...)
	}
	if !req.NoTools {
		for _, t := range req.Tools {
			b.Tools = append(b.Tools, responsesTool{Type: "function", Name: t.Name(), Description: t.Description(), Parameters: json.RawMessage(t.Schema())})
		}
	}
	return json.Marshal(b)
}

// inputItems converts one message into the input items it becomes: a system or user
// message is one message item (a user's images as input_image parts); an assistant message
// is its reasoning items (those that can go back), its text as an output message and each
// tool call as a function_call item; a tool result is a function_call_output.
func inputItems(m model.Message) ([]json.RawMessage, error) {
	var items []any
	switch m.Role {
	case model.RoleTool:
		out := m.Content
		if out == "" {
			out = "(no output)"
		}
		items = append(items, functionOutput{Type: "function_call_output", CallID: m.ToolCallID, Output: out})
	case model.RoleAssistant:
		var raw []json.RawMessage
		if m.ReasoningField == ReasoningField {
			raw = reasoningInput(m.ReasoningDetails)
		}
		if m.Content != "" {
			items = append(items, outputMessage{Type: "message", Role: model.RoleAssistant,
				Content: []outputText{{Type: "output_text", Text: m.Content, Annotations: []any{}}}})
		}
		for _, c := range m.ToolCalls {
			items = append(items, functionCall{Type: "function_call", CallID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
		return appendItems(raw, items)
	default:
		msg := inputMessage{Role: m.Role, Content: m.Content}
		if len(m.Images) > 0 {
			parts := []inputPart{{Type: "input_text", Text: m.Content}}
			for _, im := range m.Images {
				parts = append(parts, inputPart{Type: "input_image", Detail: "auto",
					ImageURL: "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)})
			}
			msg.Content = parts
		}
		items = append(items, msg)
	}
	return appendItems(nil, items)
}

func appendItems(out []json.RawMessage, items []any) ([]json.RawMessage, error) {
	for _, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// reasoningInput returns the kept reasoning items that can go back: those with encrypted
// reasoning (OpenAI) or reasoning text (open models served by OpenRouter or vLLM). A
// summary alone cannot: with store false the provider has nothing to find it by.
func reasoningInput(details json.RawMessage) []json.RawMessage {
	var items []struct {
		Encrypted *string           `json:"encrypted_content"`
		Content   []json.RawMessage `json:"content"`
	}
	var raw []json.RawMessage
	if json.Unmarshal(details, &raw) != nil || json.Unmarshal(details, &items) != nil {
		return nil
	}
	var out []json.RawMessage
	for i, it := range items {
		if (it.Encrypted != nil && *it.Encrypted != "") || len(it.Content) > 0 {
			out = append(out, raw[i])
		}
	}
	return out
}

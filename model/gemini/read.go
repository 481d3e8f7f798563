package gemini

import (
	"encoding/json"
	"strings"

	"github.com/kimi-run/kimi-run/model/cassette"
)

// ReadRequest reads a Gemini request body (contents of user and model turns) as the
// conversation a strict replay compares: the system instruction as the system message
// (whose text is not compared), a model turn's text, thought text and function calls as an
// assistant message, a user turn's function responses as tool messages (their output as
// the content) and its text as a user message. Thought signatures are not compared: they
// are the provider's, different in every recording.
func ReadRequest(body []byte) ([]cassette.Message, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, err
	}
	type part struct {
		Text         *string `json:"text"`
		Thought      bool    `json:"thought"`
		FunctionCall *struct {
			ID   string          `json:"id"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"functionCall"`
		FunctionResponse *struct {
			ID       string          `json:"id"`
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	}
	type content struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	var contents []content
	if err := json.Unmarshal(top["contents"], &contents); err != nil {
		return nil, err
	}
	var w []cassette.Message
	if raw, ok := top["systemInstruction"]; ok && string(raw) != "null" {
		w = append(w, cassette.Message{Role: "system"})
	}
	for _, c := range contents {
		if c.Role == "model" {
			var text, thought strings.Builder
			m := cassette.Message{Role: "assistant"}
			for _, p := range c.Parts {
				switch {
				case p.FunctionCall != nil:
					var call cassette.Call
					call.ID, call.Function.Name, call.Function.Arguments = p.FunctionCall.ID, p.FunctionCall.Name, string(p.FunctionCall.Args)
					m.ToolCalls = append(m.ToolCalls, call)
				case p.Text != nil && p.Thought:
					thought.WriteString(*p.Text)
				case p.Text != nil:
					text.WriteString(*p.Text)
				}
			}
			m.Content, _ = json.Marshal(text.String())
			m.Reasoning = thought.String()
			w = append(w, m)
			continue
		}
		var text []string
		for _, p := range c.Parts {
			switch {
			case p.FunctionResponse != nil:
				var out struct {
					Output *string `json:"output"`
				}
				body := string(p.FunctionResponse.Response)
				if json.Unmarshal(p.FunctionResponse.Response, &out) == nil && out.Output != nil {
					body = *out.Output
				}
				cont, _ := json.Marshal(body)
				w = append(w, cassette.Message{Role: "tool", ToolCallID: p.FunctionResponse.ID, Content: cont})
			case p.Text != nil:
				text = append(text, *p.Text)
			}
		}
		if text != nil {
			cont, _ := json.Marshal(strings.Join(text, "\n"))
			w = append(w, cassette.Message{Role: "user", Content: cont})
		}
	}
	return w, nil
}

package scripted

import (
	"encoding/json"
	"strings"
)

// geminiMessages is the conversation of a Gemini request in chat-completions' shape, so
// that a test reads what went back the same way whatever the protocol: the system
// instruction as a system message; a user turn's function responses as tool messages
// (tool_call_id, name, content: the response's output) and its text as a user message; a
// model turn as an assistant message (content, tool_calls with arguments as JSON text),
// with its parts as sent under "parts" (signatures and all).
func geminiMessages(body map[string]any) []map[string]any {
	var out []map[string]any
	if si, ok := body["systemInstruction"].(map[string]any); ok {
		out = append(out, map[string]any{"role": "system", "content": geminiText(si, false)})
	}
	contents, _ := body["contents"].([]any)
	for _, c := range contents {
		content, _ := c.(map[string]any)
		parts, _ := content["parts"].([]any)
		if content["role"] == "model" {
			msg := map[string]any{"role": "assistant", "content": geminiText(content, false), "parts": parts}
			if th := geminiText(content, true); th != "" {
				msg["reasoning_content"] = th
			}
			var calls []any
			for _, p := range parts {
				fc, ok := p.(map[string]any)["functionCall"].(map[string]any)
				if !ok {
					continue
				}
				args, _ := json.Marshal(fc["args"])
				calls = append(calls, map[string]any{"id": fc["id"], "type": "function",
					"function": map[string]any{"name": fc["name"], "arguments": string(args)}})
			}
			if calls != nil {
				msg["tool_calls"] = calls
			}
			out = append(out, msg)
			continue
		}
		var text []string
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			if fr, ok := pm["functionResponse"].(map[string]any); ok {
				resp, _ := fr["response"].(map[string]any)
				content, ok := resp["output"].(string)
				if !ok {
					b, _ := json.Marshal(fr["response"])
					content = string(b)
				}
				out = append(out, map[string]any{"role": "tool", "tool_call_id": fr["id"], "name": fr["name"], "content": content})
				continue
			}
			if s, ok := pm["text"].(string); ok {
				text = append(text, s)
			}
		}
		if text != nil {
			out = append(out, map[string]any{"role": "user", "content": strings.Join(text, "\n")})
		}
	}
	return out
}

// geminiText joins the text of a content's parts: the thoughts, or the rest.
func geminiText(content map[string]any, thoughts bool) string {
	parts, _ := content["parts"].([]any)
	var b strings.Builder
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		if s, ok := pm["text"].(string); ok && (pm["thought"] == true) == thoughts {
			b.WriteString(s)
		}
	}
	return b.String()
}

// Model is the model a request asked for: the body's "model", or, for Gemini, the model in
// the path (…/models/NAME:streamGenerateContent).
func (r Request) Model() string {
	if m, ok := r.Body["model"].(string); ok {
		return m
	}
	if geminiPath(r.Path) {
		p := strings.TrimSuffix(r.Path, ":streamGenerateContent")
		return p[strings.LastIndex(p, "/")+1:]
	}
	return ""
}

package gemini

import (
	"encoding/json"
	"strings"

	"github.com/kimi-run/kimi-run/model"
)

// geminiSkipSignature stands in for the thought signature of a function call Gemini did
// not make (a conversation begun with another provider, or a session from before): Google
// documents it as the value that tells Gemini 3 to skip its check that the current turn's
// calls carry their signatures, which otherwise fails the request with HTTP 400.
const geminiSkipSignature = "skip_thought_signature_validator"

// body builds the streamGenerateContent request: system messages become the system
// instruction, the conversation becomes contents of user and model turns, the tools one
// list of function declarations.
func (g *Client) body(req model.Request) geminiRequest {
	var r geminiRequest
	var sys []geminiPart
	names := map[string]string{} // call id -> tool name, for the function responses
	add := func(role string, parts ...geminiPart) {
		if len(parts) == 0 {
			return
		}
		if n := len(r.Contents); n > 0 && r.Contents[n-1].Role == role {
			// Consecutive turns of one role are one turn: the results of parallel calls
			// go back together, with a user message that follows them.
			r.Contents[n-1].Parts = append(r.Contents[n-1].Parts, parts...)
			return
		}
		r.Contents = append(r.Contents, geminiContent{Role: role, Parts: parts})
	}
	for _, m := range model.ToolMediaAsUser(req.Messages, nil) {
		switch m.Role {
		case model.RoleSystem:
			if m.Content != "" {
				sys = append(sys, textPart(m.Content))
			}
		case model.RoleAssistant:
			add("model", modelParts(m, names)...)
		case model.RoleTool:
			add("user", functionResponse(m, names))
		default:
			add("user", userParts(m)...)
		}
	}
	if len(sys) > 0 {
		r.SystemInstruction = &geminiContent{Parts: sys}
	}
	if !req.NoTools && len(req.Tools) > 0 {
		decls := make([]geminiFunctionDecl, 0, len(req.Tools))
		for _, t := range req.Tools {
			decls = append(decls, geminiFunctionDecl{Name: t.Name(), Description: t.Description(), Parameters: geminiSchema(t.Schema())})
		}
		r.Tools = []geminiTool{{FunctionDeclarations: decls}}
	}
	gen := geminiGeneration{MaxOutputTokens: req.MaxTokens, ThinkingConfig: g.thinking()}
	if gen != (geminiGeneration{}) {
		r.GenerationConfig = &gen
	}
	return r
}

// thinking is the thinkingConfig for the --thinking switch, as Kimi CLI sets it: Gemini 3
// thinks at level HIGH, earlier models with a budget; off turns thinking down (Gemini 2.5
// Flash and Flash-Lite to none: 2.5 Pro always thinks, and says so with HTTP 400). Thoughts
// are asked for whenever thinking is on, so that they reach the thinking events. Unset
// sends nothing: the model's default.
func (g *Client) thinking() *geminiThinking {
	if g.cfg.Thinking == nil {
		return nil
	}
	on := *g.cfg.Thinking
	gemini3 := strings.Contains(strings.ToLower(g.cfg.Model), "gemini-3")
	switch {
	case on && gemini3:
		return &geminiThinking{IncludeThoughts: &on, ThinkingLevel: "HIGH"}
	case on:
		dynamic := -1 // the model decides how much, within its own range
		return &geminiThinking{IncludeThoughts: &on, ThinkingBudget: &dynamic}
	case gemini3:
		return &geminiThinking{ThinkingLevel: "LOW"} // Gemini 3 cannot stop thinking
	default:
		none := 0
		return &geminiThinking{IncludeThoughts: &on, ThinkingBudget: &none}
	}
}

func textPart(s string) geminiPart { return geminiPart{Text: &s} }

// userParts is a user message: its text, then its images inline.
func userParts(m model.Message) []geminiPart {
	parts := []geminiPart{textPart(m.Content)}
	for _, im := range m.Images {
		parts = append(parts, geminiPart{InlineData: &geminiBlob{MIMEType: im.MIME, Data: im.Data}})
	}
	return parts
}

// modelParts is an assistant message as a model turn: the thought (only when it carried a
// signature: thoughts themselves are not sent back), the text, then the function calls,
// each signature on the part it came on.
func modelParts(m model.Message, names map[string]string) []geminiPart {
	var sigs geminiSignatures
	fromGemini := m.ReasoningField == ReasoningField
	if fromGemini {
		_ = json.Unmarshal(m.ReasoningDetails, &sigs) // unreadable signatures are left out
	}
	var parts []geminiPart
	if sigs.Thought != "" && m.Reasoning != "" {
		thought := m.Reasoning
		parts = append(parts, geminiPart{Text: &thought, Thought: true, ThoughtSignature: sigs.Thought})
	}
	if m.Content != "" || sigs.Text != "" {
		parts = append(parts, geminiPart{Text: &m.Content, ThoughtSignature: sigs.Text})
	}
	signed := false
	first := len(parts)
	for _, c := range m.ToolCalls {
		names[c.ID] = c.Name
		args, ok := model.ParseArgs(c.Arguments)
		if !ok {
			// Arguments that are not a JSON object (from another provider's model) have no
			// place in a functionCall; the model read what was wrong in the call's result.
			args = json.RawMessage("{}")
		}
		sig := sigs.Calls[c.ID]
		signed = signed || sig != ""
		parts = append(parts, geminiPart{FunctionCall: &geminiFunctionCall{ID: c.ID, Name: c.Name, Args: args}, ThoughtSignature: sig})
	}
	if !fromGemini && !signed && len(m.ToolCalls) > 0 {
		parts[first].ThoughtSignature = geminiSkipSignature
	}
	return parts
}

// functionResponse is a tool result, under the name of the call it answers, its text as
// the response's output (Kimi CLI's shape).
func functionResponse(m model.Message, names map[string]string) geminiPart {
	name := model.FirstSet(names[m.ToolCallID], m.Name, "tool")
	out, _ := json.Marshal(map[string]string{"output": m.Content})
	return geminiPart{FunctionResponse: &geminiFuncResponse{ID: m.ToolCallID, Name: name, Response: out}}
}

// geminiSchema is a tool's JSON Schema for parametersJsonSchema, as Kimi CLI sanitises
// it: without the keywords that only name or annotate the schema ($schema, $id, $comment),
// and with local references ($ref to #/$defs/… or #/definitions/…) written out in place,
// so that Gemini gets a self-contained schema. A schema whose references are recursive,
// or that does not parse, is sent as it is.
func geminiSchema(schema []byte) json.RawMessage {
	if len(schema) == 0 {
		return nil
	}
	text := string(schema)
	if !strings.Contains(text, `"$schema"`) && !strings.Contains(text, `"$id"`) && !strings.Contains(text, `"$comment"`) && !strings.Contains(text, `"$ref"`) {
		return json.RawMessage(schema)
	}
	var doc map[string]any
	if json.Unmarshal(schema, &doc) != nil {
		return json.RawMessage(schema)
	}
	defs := map[string]any{}
	for _, key := range []string{"$defs", "definitions"} {
		if d, ok := doc[key].(map[string]any); ok {
			for name, v := range d {
				defs["#/"+key+"/"+name] = v
			}
		}
	}
	out, ok := inlineRefs(doc, defs, 0)
	if !ok {
		out = doc
	}
	m := out.(map[string]any)
	for _, k := range []string{"$schema", "$id", "$comment"} {
		delete(m, k)
	}
	if ok {
		delete(m, "$defs")
		delete(m, "definitions")
	}
	b, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(schema)
	}
	return b
}

// inlineRefs returns v with every local $ref replaced by a copy of what it names; ok is
// false when a reference is unknown or the nesting passes 32 (a recursive schema).
func inlineRefs(v any, defs map[string]any, depth int) (any, bool) {
	if depth > 32 {
		return nil, false
	}
	switch x := v.(type) {
	case map[string]any:
		if ref, isRef := x["$ref"].(string); isRef {
			target, known := defs[ref]
			if !known {
				return nil, false
			}
			return inlineRefs(target, defs, depth+1)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k == "$comment" {
				continue
			}
			r, ok := inlineRefs(e, defs, depth+1)
			if !ok {
				return nil, false
			}
			out[k] = r
		}
		return out, true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, ok := inlineRefs(e, defs, depth+1)
			if !ok {
				return nil, false
			}
			out[i] = r
		}
		return out, true
	}
	return v, true
}

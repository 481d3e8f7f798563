package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// contentParts is a message's or delta's content as providers send it: a string, or a
// list of typed parts. Mistral's thinking models (magistral) send
// [{"type":"thinking","thinking":[{"type":"text","text":"…"}]}, {"type":"text","text":"…"}]:
// text parts are the content, thinking parts the reasoning. Parts of other types (images,
// references) carry nothing the loop keeps.
type contentParts struct {
	text, thinking string
}

func (c *contentParts) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		return nil
	case b[0] == '"':
		return json.Unmarshal(b, &c.text)
	case b[0] != '[':
		return fmt.Errorf("content is neither a string nor a list of parts: %.40s", b)
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	var text, thinking strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "text", "output_text":
			text.WriteString(p.Text)
		case "thinking":
			thinking.WriteString(partsText(p.Thinking))
		}
	}
	c.text, c.thinking = text.String(), thinking.String()
	return nil
}

// partsText is the text of a thinking part's body: a string, or a list of text parts.
func partsText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// thinkingContent is an assistant message's content with its reasoning as a thinking part
// in front, the way Mistral sends it and reads it back.
func thinkingContent(reasoning, text string) json.RawMessage {
	type textPart struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	parts := []any{struct {
		Type     string     `json:"type"`
		Thinking []textPart `json:"thinking"`
	}{"thinking", []textPart{{"text", reasoning}}}}
	if text != "" {
		parts = append(parts, textPart{"text", text})
	}
	b, _ := json.Marshal(parts)
	return b
}

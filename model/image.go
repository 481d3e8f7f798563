package model

import (
	"encoding/base64"

	"github.com/sashabaranov/go-openai"
)

// imageParts is a user message with images as chat-completions content parts: the text,
// then each image as a data URL, as OpenAI's and Moonshot's vision models read them.
func imageParts(m Message) []openai.ChatMessagePart {
	parts := []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: m.Content}}
	for _, im := range m.Images {
		parts = append(parts, openai.ChatMessagePart{
			Type:     openai.ChatMessagePartTypeImageURL,
			ImageURL: &openai.ChatMessageImageURL{URL: "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)},
		})
	}
	return parts
}

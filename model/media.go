package model

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/kimi-run/kimi-run/event"
)

// MediaTokens is what one image or video counts for in a token estimate, as Kimi CLI
// counts it (llm.py MEDIA_TOKEN_ESTIMATE): providers bill a picture by its size, not by
// its bytes, and a guess this size keeps compaction from ignoring it.
const MediaTokens = 2000

// dataURL is a medium inline, as vision endpoints read it.
func dataURL(im event.Image) string {
	return "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}

// mediaPart is one chat-completions content part: text, an image or a video.
type mediaPart struct {
	Type     string    `json:"type"`
	Text     *string   `json:"text,omitempty"`
	ImageURL *urlField `json:"image_url,omitempty"`
	VideoURL *urlField `json:"video_url,omitempty"`
}

type urlField struct {
	URL string `json:"url"`
}

func mediaText(s string) mediaPart { return mediaPart{Type: "text", Text: &s} }

// mediaContent is text followed by each medium as content parts. A medium read from a file
// sits between <image path="…"> and </image> (or <video …>) text parts, as Kimi CLI wraps
// it, so that the model can tell several apart; videos go as video_url parts (Moonshot's
// and vLLM's name for them).
func mediaContent(text string, media []event.Image) json.RawMessage {
	parts := make([]mediaPart, 0, 1+3*len(media))
	if text != "" {
		parts = append(parts, mediaText(text))
	}
	for _, im := range media {
		tag := "image"
		p := mediaPart{Type: "image_url", ImageURL: &urlField{URL: dataURL(im)}}
		if strings.HasPrefix(im.MIME, "video/") {
			tag = "video"
			p = mediaPart{Type: "video_url", VideoURL: &urlField{URL: dataURL(im)}}
		}
		if im.Path == "" {
			parts = append(parts, p)
			continue
		}
		parts = append(parts, mediaText("<"+tag+` path="`+html.EscapeString(im.Path)+`">`), p, mediaText("</"+tag+">"))
	}
	raw, _ := json.Marshal(parts) // strings and pointers to them only: cannot fail
	return raw
}

// toolMediaNote heads the user message that carries tool results' media to an endpoint
// that takes media only from the user (see OpenAI.request).
const toolMediaNote = "The media read by the tool calls above:"

// ToolMediaAsUser returns msgs with the media of tool results moved into a user message
// right after each run of tool messages, for a protocol whose tool results take no media
// (the Responses API's function_call_output, Gemini's functionResponse): its user message
// takes them. takes says which media types the protocol reads; the others are named in
// the text instead. msgs itself is returned when no tool result has media.
func ToolMediaAsUser(msgs []Message, takes func(mime string) bool) []Message {
	if !slices.ContainsFunc(msgs, func(m Message) bool { return m.Role == RoleTool && len(m.Images) > 0 }) {
		return msgs
	}
	out := make([]Message, 0, len(msgs)+1)
	var pending []event.Image
	flush := func() {
		if len(pending) == 0 {
			return
		}
		u := Message{Role: RoleUser}
		var b strings.Builder
		b.WriteString(toolMediaNote)
		for _, im := range pending {
			from := ""
			if im.Path != "" {
				from = " from " + im.Path
			}
			if takes != nil && !takes(im.MIME) {
				fmt.Fprintf(&b, "\n- %s%s: not sent, this provider takes none", im.MIME, from)
				continue
			}
			fmt.Fprintf(&b, "\n- %s%s", im.MIME, from)
			u.Images = append(u.Images, im)
		}
		u.Content = b.String()
		out = append(out, u)
		pending = nil
	}
	for _, m := range msgs {
		if m.Role != RoleTool {
			flush()
		} else if len(m.Images) > 0 {
			pending = append(pending, m.Images...)
			m.Images = nil
		}
		out = append(out, m)
	}
	flush()
	return out
}

// ImagesOnly says a protocol reads images but no videos.
func ImagesOnly(mime string) bool { return strings.HasPrefix(mime, "image/") }

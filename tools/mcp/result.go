package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kimi-run/kimi-run/tools"
)

// formatResult turns a tool result into text for the model: text parts joined by newlines,
// images, audio and binary resources as a short placeholder with their type and size,
// structured content as JSON only when no text part came with it, and isError as an error
// result. The agent caps the length.
//
// The spec asks a server that returns structured content to return it as text too, and
// real servers put the same data in the text in their own shape (server-filesystem's
// read_text_file: the file's text, and {"content": that text}; server-memory's
// create_entities: indented JSON): sending both gave the model everything twice.
func formatResult(r *sdk.CallToolResult) tools.Result {
	var parts []string
	hasText := false
	for _, c := range r.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
			hasText = true
		case *sdk.ImageContent:
			parts = append(parts, placeholder("image", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, placeholder("audio", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link: %s %s]", c.Name, c.URI))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(c.Resource))
		default:
			parts = append(parts, fmt.Sprintf("[%T content, not shown]", c))
		}
	}
	if r.StructuredContent != nil && !hasText {
		if js, err := json.Marshal(r.StructuredContent); err == nil {
			parts = append(parts, string(js))
		}
	}
	out := strings.Join(parts, "\n")
	if strings.TrimSpace(out) == "" {
		out = "(the tool returned no content)"
		if r.IsError {
			out = "the tool reported an error without a message"
		}
	}
	return tools.Result{Output: out, IsError: r.IsError}
}

func placeholder(kind, mime string, size int) string {
	if mime == "" {
		mime = "unknown type"
	}
	return fmt.Sprintf("[%s: %s, %d bytes, not shown]", kind, mime, size)
}

func embedded(rc *sdk.ResourceContents) string {
	if rc == nil {
		return "[empty resource]"
	}
	if rc.Blob == nil {
		return fmt.Sprintf("[resource %s]\n%s", rc.URI, rc.Text)
	}
	mime := rc.MIMEType
	if mime == "" {
		mime = "unknown type"
	}
	return fmt.Sprintf("[resource %s: %s, %d bytes, not shown]", rc.URI, mime, len(rc.Blob))
}

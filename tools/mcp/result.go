package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kimi-run/kimi-run/tools"
)

// formatResult turns a tool result into text for the model: text parts joined by newlines,
// images, audio and binary resources as a short placeholder with their type and size,
// structured content as JSON (unless a text part already holds the same JSON, as the spec
// asks servers to do), and isError as an error result. The agent caps the length.
func formatResult(r *sdk.CallToolResult) tools.Result {
	var parts, texts []string
	for _, c := range r.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
			texts = append(texts, c.Text)
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
	if r.StructuredContent != nil {
		js, err := json.Marshal(r.StructuredContent)
		if err == nil && !sameJSON(texts, js) {
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

// sameJSON reports whether the only text part is the JSON value js.
func sameJSON(texts []string, js []byte) bool {
	if len(texts) != 1 {
		return false
	}
	var a, b any
	if json.Unmarshal([]byte(texts[0]), &a) != nil || json.Unmarshal(js, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

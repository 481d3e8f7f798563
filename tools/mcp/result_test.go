package mcp

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestFormatResult(t *testing.T) {
	size := int64(9)
	tests := []struct {
		name    string
		res     *sdk.CallToolResult
		want    string
		isError bool
	}{
		{"text parts joined", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "one"}, &sdk.TextContent{Text: "two"}}},
			"one\ntwo", false},
		{"image and audio as placeholders", &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.ImageContent{Data: make([]byte, 1234), MIMEType: "image/png"},
			&sdk.AudioContent{Data: make([]byte, 10), MIMEType: "audio/wav"},
			&sdk.ImageContent{Data: []byte("x")},
		}}, "[image: image/png, 1234 bytes, not shown]\n[audio: audio/wav, 10 bytes, not shown]\n[image: unknown type, 1 bytes, not shown]", false},
		{"structured content as JSON", &sdk.CallToolResult{StructuredContent: map[string]any{"sum": 5}}, `{"sum":5}`, false},
		{"structured content already in the text", &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: `{ "sum": 5 }`}},
			StructuredContent: map[string]any{"sum": 5}}, `{ "sum": 5 }`, false},
		// issue 21 #7: server-filesystem's read_text_file sends the file as text and as
		// {"content": …}; server-memory's create_entities indented JSON and the object.
		{"structured content beside text in another shape", &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: "line one\nline two\n"}},
			StructuredContent: map[string]any{"content": "line one\nline two\n"}}, "line one\nline two\n", false},
		{"structured content beside indented JSON", &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: "[\n  {\n    \"name\": \"a\"\n  }\n]"}},
			StructuredContent: map[string]any{"entities": []any{map[string]any{"name": "a"}}}}, "[\n  {\n    \"name\": \"a\"\n  }\n]", false},
		{"structured content beside an image only", &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.ImageContent{Data: []byte("x"), MIMEType: "image/png"}},
			StructuredContent: []any{1, 2}}, "[image: image/png, 1 bytes, not shown]\n[1,2]", false},
		{"error result", &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no such repo"}}},
			"no such repo", true},
		{"error without a message", &sdk.CallToolResult{IsError: true}, "the tool reported an error without a message", true},
		{"nothing", &sdk.CallToolResult{}, "(the tool returned no content)", false},
		{"resources", &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.txt", Text: "hello"}},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.bin", MIMEType: "application/zip", Blob: []byte("12345")}},
			&sdk.ResourceLink{URI: "https://x.test/doc", Name: "doc", Size: &size},
		}}, "[resource file:///a.txt]\nhello\n[resource file:///a.bin: application/zip, 5 bytes, not shown]\n[resource link: doc https://x.test/doc]", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := formatResult(tt.res)
			if got.Output != tt.want || got.IsError != tt.isError {
				t.Errorf("got %q (error %v), want %q (error %v)", got.Output, got.IsError, tt.want, tt.isError)
			}
		})
	}
}

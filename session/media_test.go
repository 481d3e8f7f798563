package session

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/model"
)

// A session keeps the images and videos of the conversation as Kimi CLI keeps them: content
// parts with data URLs, so a resumed run (or Kimi CLI reading the file) sees what the model
// saw. The file a tool read one from comes back with it. A medium too large for one record
// is replaced by a note rather than costing the session; one given by a web address (which
// Kimi CLI may write) is dropped with a warning.
func TestSessionKeepsMedia(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context.jsonl")
	s, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	img := event.Image{MIME: "image/png", Data: []byte("\x89PNG\r\n\x1a\npixels"), Path: "/w/shot.png"}
	vid := event.Image{MIME: "video/mp4", Data: []byte("\x00\x00\x00\x18ftypmp42")}
	huge := event.Image{MIME: "image/png", Data: bytes.Repeat([]byte{0x89}, maxRecordBytes/4*3), Path: "/w/huge.png"}
	msgs := []model.Message{
		{Role: model.RoleUser, Content: "look", Images: []event.Image{vid}},
		{Role: model.RoleAssistant, Reasoning: "I read it", ToolCalls: []model.CallSpec{{ID: "a", Name: "ReadMediaFile", Arguments: `{"path":"shot.png"}`}, {ID: "b", Name: "ReadMediaFile", Arguments: `{"path":"huge.png"}`}}},
		{Role: model.RoleTool, ToolCallID: "a", Content: "The image is attached.", Images: []event.Image{img}},
		{Role: model.RoleTool, ToolCallID: "b", Content: "The big one.", Images: []event.Image{huge}},
	}
	for _, m := range msgs {
		if err := s.AppendSync(m); err != nil {
			t.Fatalf("append: %v", err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if !bytes.Contains(raw, []byte(`{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgpwaXhlbHM="},"path":"/w/shot.png"}`)) ||
		!bytes.Contains(raw, []byte(`{"type":"video_url","video_url":{"url":"data:video/mp4;base64,`)) {
		t.Errorf("the file does not keep the media as Kimi's content parts:\n%.600s", raw)
	}

	got := restoreFile(t, path)
	if len(got.Messages) != 4 {
		t.Fatalf("restored %d messages: %+v", len(got.Messages), got.Messages)
	}
	if m := got.Messages[0]; len(m.Images) != 1 || m.Images[0].MIME != "video/mp4" || !bytes.Equal(m.Images[0].Data, vid.Data) || m.Content != "look" {
		t.Errorf("user message = %+v", m)
	}
	if m := got.Messages[2]; len(m.Images) != 1 || m.Images[0].Path != img.Path || !bytes.Equal(m.Images[0].Data, img.Data) || m.Content != "The image is attached." {
		t.Errorf("tool result = %+v", m)
	}
	if m := got.Messages[3]; len(m.Images) != 0 || !strings.Contains(m.Content, "The big one.") ||
		!strings.Contains(m.Content, fmt.Sprintf("[image/png of %d bytes from /w/huge.png: not kept in the session", len(huge.Data))) {
		t.Errorf("a medium too large for a record: restored %q with %d media, want the text and a note", m.Content, len(m.Images))
	}
	if len(got.Warnings) != 0 {
		t.Errorf("warnings %q", got.Warnings)
	}
}

func TestSessionDropsMediaByAddress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context.jsonl")
	line := `{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"https://example.com/a.png","id":null}}]}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Read(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Messages) != 1 || r.Messages[0].Content != "see" || len(r.Messages[0].Images) != 0 {
		t.Errorf("restored %+v", r.Messages)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "dropped 1 content part") {
		t.Errorf("warnings %q, want one about the dropped part", r.Warnings)
	}
}

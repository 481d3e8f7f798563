package model

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/event"
)

// For a protocol whose tool results take no media, the media move into one user message
// after each run of tool messages; a medium the protocol cannot read (a video for Anthropic)
// is named there instead of sent. A conversation without media is returned as it is.
func TestToolMediaAsUser(t *testing.T) {
	img := event.Image{MIME: "image/png", Data: []byte("p"), Path: "/w/a.png"}
	vid := event.Image{MIME: "video/mp4", Data: []byte("v"), Path: "/w/b.mp4"}
	msgs := []Message{
		{Role: RoleUser, Content: "look"},
		{Role: RoleAssistant, ToolCalls: []CallSpec{{ID: "1"}, {ID: "2"}}},
		{Role: RoleTool, ToolCallID: "1", Content: "a", Images: []event.Image{img}},
		{Role: RoleTool, ToolCallID: "2", Content: "b", Images: []event.Image{vid}},
		{Role: RoleAssistant, Content: "seen"},
	}
	got := ToolMediaAsUser(msgs, ImagesOnly)
	if len(got) != 6 || got[4].Role != RoleUser || got[5].Content != "seen" || len(got[2].Images)+len(got[3].Images) != 0 {
		t.Fatalf("messages %+v", got)
	}
	u := got[4]
	if len(u.Images) != 1 || u.Images[0].Path != img.Path ||
		!strings.Contains(u.Content, "- image/png from /w/a.png") || !strings.Contains(u.Content, "- video/mp4 from /w/b.mp4: not sent") {
		t.Errorf("user message %+v", u)
	}
	if len(msgs[2].Images) != 1 {
		t.Error("the caller's messages were changed")
	}
	plain := msgs[:2]
	if out := ToolMediaAsUser(plain, nil); &out[0] != &plain[0] {
		t.Error("a conversation without media was copied")
	}
}

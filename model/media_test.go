package model_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
)

// The media of tool results (ReadMediaFile) reach the model in the tool message for a Kimi
// endpoint, wrapped as Kimi CLI wraps them (<image path="…">, the image_url part,
// </image>), and in a user message right after the results for any other endpoint, which
// takes media only from the user. A video is a video_url part. The text the tool wrote
// stays in the tool message either way.
func TestToolMediaRendering(t *testing.T) {
	t.Parallel()
	img := event.Image{MIME: "image/png", Data: []byte("\x89PNG\r\n\x1a\npng"), Path: "/w/shot.png"}
	vid := event.Image{MIME: "video/mp4", Data: []byte("mp4 bytes"), Path: "/w/a&b.mp4"}
	url := func(im event.Image) string {
		return "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
	}
	history := []model.Message{
		{Role: model.RoleUser, Content: "look at these"},
		{Role: model.RoleAssistant, ToolCalls: []model.CallSpec{{ID: "a", Name: "ReadMediaFile", Arguments: `{}`}, {ID: "b", Name: "ReadMediaFile", Arguments: `{}`}}},
		{Role: model.RoleTool, ToolCallID: "a", Content: "the image", Images: []event.Image{img}},
		{Role: model.RoleTool, ToolCallID: "b", Content: "the video", Images: []event.Image{vid}},
	}
	imageParts := []any{
		map[string]any{"type": "text", "text": `<image path="/w/shot.png">`},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": url(img)}},
		map[string]any{"type": "text", "text": "</image>"},
	}
	videoParts := []any{
		map[string]any{"type": "text", "text": `<video path="/w/a&amp;b.mp4">`},
		map[string]any{"type": "video_url", "video_url": map[string]any{"url": url(vid)}},
		map[string]any{"type": "text", "text": "</video>"},
	}
	text := func(s string) any { return map[string]any{"type": "text", "text": s} }
	for _, tt := range []struct {
		name   string
		inline bool
		want   []any // the content of each message after the system-less history
	}{
		{"kimi endpoint: inside the tool messages", true, []any{
			"look at these", nil,
			append([]any{text("the image")}, imageParts...),
			append([]any{text("the video")}, videoParts...),
		}},
		{"other endpoints: a user message after the results", false, []any{
			"look at these", nil, "the image", "the video",
			append(append([]any{text("The media read by the tool calls above:")}, imageParts...), videoParts...),
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("seen"))
			m := model.NewOpenAI(model.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", IdleTimeout: time.Minute, MediaInToolResults: tt.inline})
			if _, err := m.Stream(t.Context(), model.Request{Messages: history}, model.Handler{}); err != nil {
				t.Fatal(err)
			}
			msgs := srv.Requests()[0].Messages()
			if len(msgs) != len(tt.want) {
				t.Fatalf("%d messages sent, want %d: %v", len(msgs), len(tt.want), msgs)
			}
			for i, want := range tt.want {
				got, _ := json.Marshal(msgs[i]["content"])
				exp, _ := json.Marshal(want)
				if want != nil && string(got) != string(exp) {
					t.Errorf("message %d (%s) content:\n got %s\nwant %s", i, msgs[i]["role"], got, exp)
				}
			}
			if last := msgs[len(msgs)-1]; !tt.inline && last["role"] != "user" {
				t.Errorf("the media follow in a %v message, want user", last["role"])
			}
		})
	}
}

package run_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// png is enough of a PNG file for the type to be recognised.
var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRscreenshot")

// TestImageAttachments: --image attaches pictures to the prompt as image_url parts for a
// model with the image_in capability (Moonshot's kimi-k2.5 and OpenAI's vision models read
// data URLs), and is refused clearly otherwise (issue 21 #11).
func TestImageAttachments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	os.WriteFile(shot, png, 0o644)
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("not a picture\n"), 0o644)
	vision := map[string]string{"KIMI_MODEL_CAPABILITIES": "image_in"}

	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("SetTodoList", `{}`)),
		scripted.Text("The button is misaligned."),
	)
	r := kimi(t, srv, invocation{env: vision, args: []string{"-i", shot, "--image", shot, "-p", "what is wrong in this screenshot?"}})
	if r.code != 0 || r.stdout != "The button is misaligned.\n" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	for i := range 2 { // the image stays in the conversation for later steps
		msgs := srv.Requests()[i].Messages()
		parts, ok := msgs[1]["content"].([]any)
		if !ok || len(parts) != 3 {
			t.Fatalf("request %d: user content = %v, want a text and two image parts", i, msgs[1]["content"])
		}
		first, _ := parts[0].(map[string]any)
		if first["type"] != "text" || first["text"] != "what is wrong in this screenshot?" {
			t.Errorf("text part = %v", first)
		}
		img, _ := parts[1].(map[string]any)
		url, _ := img["image_url"].(map[string]any)
		if img["type"] != "image_url" || url["url"] != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(png) {
			t.Errorf("image part = %v", img)
		}
	}

	for _, tt := range []struct {
		name   string
		env    map[string]string
		args   []string
		stderr string
	}{
		{"no image_in", nil, []string{"--image", shot}, "does not have the image_in capability"},
		{"not an image", vision, []string{"--image", text}, "is text/plain; charset=utf-8, not a PNG"},
		{"missing", vision, []string{"--image", filepath.Join(dir, "gone.png")}, "gone.png"},
	} {
		srv := scripted.New(t, scripted.Text("x"))
		r := kimi(t, srv, invocation{env: tt.env, args: append([]string{"-p", "look"}, tt.args...)})
		if r.code != 2 || !strings.Contains(r.stderr, tt.stderr) || len(srv.Requests()) != 0 {
			t.Errorf("%s: exit %d after %d calls, stderr %q; want 2 before any call and %q", tt.name, r.code, len(srv.Requests()), r.stderr, tt.stderr)
		}
	}
}

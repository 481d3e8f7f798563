package run_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// contentParts returns a message's content as parts: a list as sent, or one text part.
func contentParts(m map[string]any) []map[string]any {
	switch c := m["content"].(type) {
	case string:
		return []map[string]any{{"type": "text", "text": c}}
	case []any:
		var out []map[string]any
		for _, p := range c {
			if pm, ok := p.(map[string]any); ok {
				out = append(out, pm)
			}
		}
		return out
	}
	return nil
}

// imageURLs are the image_url URLs among a message's parts.
func imageURLs(m map[string]any) []string {
	var urls []string
	for _, p := range contentParts(m) {
		if u, ok := p["image_url"].(map[string]any); ok && p["type"] == "image_url" {
			urls = append(urls, u["url"].(string))
		}
	}
	return urls
}

// TestReadMediaFile: with a model that reads images, the agent has ReadMediaFile (Kimi
// CLI's default tool), and the image it reads reaches the model: inside the tool message on
// Moonshot's API, as Kimi CLI sends it, and in a user message after the results elsewhere.
// The events carry the tool's text, never the image's bytes. The session keeps the image,
// so a resumed run sends it again. Without image_in or video_in the tool is not offered.
func TestReadMediaFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "shot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	home := t.TempDir()
	vision := map[string]string{"KIMI_MODEL_CAPABILITIES": "image_in", "HOME": home}

	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("ReadMediaFile", `{"path":"shot.png"}`)),
		scripted.Text("A login form."),
		scripted.Text("Still a login form."),
	)
	r := kimi(t, srv, invocation{dir: dir, env: vision, args: []string{"--output-format", "stream-json", "-p", "what is in shot.png?"}})
	res := lastResult(t, r)
	if r.code != 0 || res["final_text"] != "A login form." {
		t.Fatalf("exit %d, result %v\n%s", r.code, res, r.stderr)
	}
	evs := events(t, r.stdout)
	if tools, _ := evs[0]["tools"].([]any); !slices.Contains(tools, any("ReadMediaFile")) {
		t.Errorf("init tools %v lack ReadMediaFile", tools)
	}
	if strings.Contains(r.stdout, base64.StdEncoding.EncodeToString(png)) {
		t.Error("an event carries the image's bytes")
	}
	for _, e := range evs {
		if e["type"] == "tool_result" && (e["is_error"] != false || !strings.Contains(e["output"].(string), fmt.Sprintf("(image/png, %d bytes)", len(png)))) {
			t.Errorf("tool_result %v", e)
		}
	}
	tool := srv.Requests()[1].MessagesOf("tool")
	if len(tool) != 1 || !slices.Equal(imageURLs(tool[0]), []string{want}) {
		t.Fatalf("tool message sent back = %v, want the image inside it", tool)
	}
	parts := contentParts(tool[0])
	if parts[0]["type"] != "text" || !strings.Contains(parts[0]["text"].(string), "is attached to this result") ||
		parts[1]["text"] != `<image path="`+filepath.Join(dir, "shot.png")+`">` || parts[3]["text"] != "</image>" {
		t.Errorf("tool message parts = %v", parts)
	}

	// The session kept the image: a resumed run shows it to the model again.
	id := res["session_id"].(string)
	r = kimi(t, srv, invocation{dir: dir, env: vision, args: []string{"-S", id, "-p", "and now?"}})
	if r.code != 0 || r.stdout != "Still a login form.\n" {
		t.Fatalf("resumed: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if tool := srv.Requests()[2].MessagesOf("tool"); len(tool) != 1 || !slices.Equal(imageURLs(tool[0]), []string{want}) {
		t.Errorf("resumed run sent the tool result %v, want it with its image", tool)
	}
}

// TestReadMediaFileOtherEndpoints: an endpoint other than Moonshot's gets the tool's text in
// the tool message and the image in a user message right after the results (OpenAI's API
// refuses images in tool messages). Kimi's message lines show Kimi's words for the result,
// not the image.
func TestReadMediaFileOtherEndpoints(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "shot.png"), png, 0o644)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("ReadMediaFile", `{"path":"shot.png"}`)),
		scripted.Text("A login form."),
	)
	cfg := `default_model = "gpt"
[models.gpt]
provider = "oa"
model = "gpt-4o"
max_context_size = 128000
capabilities = ["image_in"]
[providers.oa]
type = "openai_legacy"
base_url = "` + srv.URL() + `"
api_key = "sk-test-config"
`
	r := kimi(t, srv, invocation{dir: dir, env: map[string]string{"KIMI_API_KEY": "", "KIMI_BASE_URL": "", "KIMI_MODEL_NAME": ""},
		args: []string{"--config", cfg, "--print", "--output-format", "stream-json", "-p", "what is in shot.png?"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	msgs := srv.Requests()[1].Messages()
	last, tool := msgs[len(msgs)-1], msgs[len(msgs)-2]
	if tool["role"] != "tool" || len(imageURLs(tool)) != 0 || last["role"] != "user" || len(imageURLs(last)) != 1 {
		t.Fatalf("messages after the call: tool %v, then %v; want the text in the tool message and the image in a user message", tool, last)
	}
	var line struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if json.Unmarshal([]byte(l), &line) == nil && line.Role == "tool" {
			if want := fmt.Sprintf("<system>Loaded image file `%s` (image/png, %d bytes).", filepath.Join(dir, "shot.png"), len(png)); !strings.HasPrefix(line.Content, want) || strings.Contains(l, "base64") {
				t.Errorf("Kimi's tool line = %s, want it to start %q", l, want)
			}
			return
		}
	}
	t.Errorf("no tool line in %s", r.stdout)
}

// TestReadMediaFileNeedsTheCapability: without image_in or video_in the tool is not
// offered (as in Kimi CLI), so a model that calls it anyway reads that no such tool exists.
func TestReadMediaFileNeedsTheCapability(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("ReadMediaFile", `{"path":"shot.png"}`)),
		scripted.Text("ok"),
	)
	srv.AllowUnknownTools()
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "look"}})
	evs := events(t, r.stdout)
	if tools, _ := evs[0]["tools"].([]any); slices.Contains(tools, any("ReadMediaFile")) {
		t.Errorf("init tools %v offer ReadMediaFile to a model without image_in", tools)
	}
	if tool := srv.Requests()[1].MessagesOf("tool"); len(tool) != 1 || !strings.Contains(tool[0]["content"].(string), `no tool named "ReadMediaFile"`) {
		t.Errorf("tool message %v", tool)
	}
}

// TestReadMediaFileEveryProtocol: the image ReadMediaFile reads reaches the model whatever
// the provider's wire protocol (issue 30's clients): in the tool result where the protocol
// takes one there (Kimi's chat completions), else in the user turn after the results.
func TestReadMediaFileEveryProtocol(t *testing.T) {
	t.Parallel()
	b64 := base64.StdEncoding.EncodeToString(png)
	for _, typ := range append(slices.Clone(wireProtocols), "openai_legacy") {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "shot.png"), png, 0o644)
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.Call("ReadMediaFile", `{"path":"shot.png"}`)),
				scripted.Text("A login form."),
			)
			env := protocolEnv(t, typ, srv, "", `max_context_size = 100000
capabilities = ["image_in"]`)
			r := kimi(t, srv, invocation{dir: dir, env: env, args: []string{"-p", "what is in shot.png?"}})
			if r.code != 0 || r.stdout != "A login form.\n" {
				t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
			}
			if reqs := srv.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1].Raw), b64) {
				t.Errorf("the image is not in the request after the tool call:\n%.2000s", reqs[len(reqs)-1].Raw)
			}
		})
	}
}

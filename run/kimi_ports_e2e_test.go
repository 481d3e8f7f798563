package run_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// kimiToolLines are the tool lines of Kimi's message lines on stdout, by tool_call_id: each
// line's content as one string (its text parts joined).
func kimiToolLines(t *testing.T, stdout string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var m struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", l)
		}
		if m.Role != "tool" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			json.Unmarshal(m.Content, &parts)
			for _, p := range parts {
				s += p.Text
			}
		}
		out[m.ToolCallID] = s
	}
	return out
}

// TestKimiReadMediaFileCases re-expresses Kimi CLI's ReadMediaFile tests
// (tests/tools/test_read_media_file.py, v1.49) through the binary, where Kimi's message
// lines (--print --output-format stream-json) show each result as Kimi words it: an image, an
// image without an extension, a video, a text file; and, for a model that reads images only,
// a video refused.
func TestKimiReadMediaFileCases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string][]byte{
		"sample.png": []byte("\x89PNG\r\n\x1a\n" + "pngdata"),
		"sample":     []byte("\x89PNG\r\n\x1a\n" + "pngdata"),
		"sample.mp4": []byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"),
		"sample.txt": []byte("hello"),
	}
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	note := " If you need to output coordinates, output relative coordinates first and compute absolute coordinates using the original image size; if you generate or edit images/videos via commands or scripts, read the result back immediately before continuing."
	for _, tt := range []struct {
		caps string
		want map[string]string // call id -> Kimi's line
	}{
		{"image_in,video_in", map[string]string{
			"png":  "<system>Loaded image file `" + p("sample.png") + "` (image/png, 15 bytes)." + note + "</system>",
			"bare": "<system>Loaded image file `" + p("sample") + "` (image/png, 15 bytes)." + note + "</system>",
			"mp4":  "<system>Loaded video file `" + p("sample.mp4") + "` (video/mp4, 24 bytes)." + note + "</system>",
			"txt":  "<system>ERROR: `" + p("sample.txt") + "` is a text file. Use ReadFile to read text files.</system>",
		}},
		{"image_in", map[string]string{
			"mp4": "<system>ERROR: The current model does not support video input.</system>",
		}},
	} {
		t.Run(tt.caps, func(t *testing.T) {
			t.Parallel()
			var calls []scripted.Part
			for _, id := range []string{"png", "bare", "mp4", "txt"} {
				if _, ok := tt.want[id]; ok {
					name := map[string]string{"png": "sample.png", "bare": "sample", "mp4": "sample.mp4", "txt": "sample.txt"}[id]
					calls = append(calls, scripted.CallID(id, "ReadMediaFile", fmt.Sprintf(`{"path":%q}`, p(name))))
				}
			}
			srv := scripted.New(t, scripted.ToolCalls(calls...), scripted.Text("seen"))
			r := kimi(t, srv, invocation{dir: dir, env: map[string]string{"KIMI_MODEL_CAPABILITIES": tt.caps},
				args: []string{"--print", "--output-format", "stream-json", "-p", "look"}})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			got := kimiToolLines(t, r.stdout)
			for id, want := range tt.want {
				if got[id] != want {
					t.Errorf("%s: Kimi's line\n got %q\nwant %q", id, got[id], want)
				}
			}
		})
	}
}

// TestKimiFetchURLWithService re-expresses Kimi CLI's test_fetch_url_with_service
// (tests/tools/test_fetch_url.py, v1.49) through the binary: with [services.moonshot_fetch],
// FetchURL POSTs {"url": …} to the service with its key as a bearer token, Accept:
// text/markdown and the custom headers, and Kimi's line carries the service's content with
// Kimi's message.
func TestKimiFetchURLWithService(t *testing.T) {
	t.Parallel()
	const content = "# Service Content\n\nThis content was fetched via the service."
	var got *http.Request
	var body map[string]any
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		json.Unmarshal(raw, &body)
		got = r
		io.WriteString(w, content)
	}))
	defer svc.Close()
	srv := scripted.New(t, scripted.ToolCalls(scripted.CallID("f", "FetchURL", `{"url":"https://example.com"}`)), scripted.Text("ok"))
	home := kimiConfig(t, fmt.Sprintf(`[services.moonshot_fetch]
base_url = "%s/fetch"
api_key = "test-key"
custom_headers = { X-Custom-Header = "custom-value" }
`, svc.URL))
	r := kimi(t, srv, invocation{env: map[string]string{"HOME": home}, args: []string{"--print", "--output-format", "stream-json", "-p", "fetch it"}})
	if r.code != 0 || got == nil {
		t.Fatalf("exit %d, service asked: %v\n%s", r.code, got != nil, r.stderr)
	}
	if got.Method != http.MethodPost || got.Header.Get("Authorization") != "Bearer test-key" || got.Header.Get("Accept") != "text/markdown" ||
		got.Header.Get("X-Custom-Header") != "custom-value" || body["url"] != "https://example.com" {
		t.Errorf("service request %s %v, body %v", got.Method, got.Header, body)
	}
	if line := kimiToolLines(t, r.stdout)["f"]; line != "<system>The returned content is the main content extracted from the page.</system>"+content {
		t.Errorf("Kimi's line %q", line)
	}
}

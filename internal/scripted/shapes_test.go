package scripted_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// body posts a minimal chat request and returns the raw response body and content type.
func body(t *testing.T, r scripted.Response) (string, string) {
	t.Helper()
	srv := scripted.New(t, r)
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), resp.Header.Get("Content-Type")
}

// dataLines decodes the data lines of an event stream, [DONE] left out.
func dataLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(s, "\n") {
		rest, ok := strings.CutPrefix(line, "data: ")
		if !ok || rest == "[DONE]" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(rest), &m); err != nil {
			t.Fatalf("data line %q: %v", rest, err)
		}
		out = append(out, m)
	}
	return out
}

// The provider shapes put usage and reasoning where each provider does.
func TestProviderShapes(t *testing.T) {
	t.Run("usage in the finishing choice", func(t *testing.T) {
		s, _ := body(t, scripted.Reply(scripted.Say("hi"), scripted.UsageInChoice(), scripted.Usage(12, 5, 3), scripted.ReasoningTokens(1)))
		chunks := dataLines(t, s)
		last := chunks[len(chunks)-1]
		if _, ok := last["usage"]; ok {
			t.Errorf("top-level usage in %v", last)
		}
		ch := last["choices"].([]any)[0].(map[string]any)
		u, _ := ch["usage"].(map[string]any)
		if ch["finish_reason"] != "stop" || u["cached_tokens"] != 3.0 || u["prompt_tokens_details"] != nil ||
			u["completion_tokens_details"].(map[string]any)["reasoning_tokens"] != 1.0 {
			t.Errorf("finishing chunk = %v", last)
		}
	})
	t.Run("usage under x_groq", func(t *testing.T) {
		s, _ := body(t, scripted.Reply(scripted.Say("hi"), scripted.UsageXGroq()))
		chunks := dataLines(t, s)
		last := chunks[len(chunks)-1]
		if x, _ := last["x_groq"].(map[string]any); x == nil || x["usage"] == nil || last["usage"] != nil {
			t.Errorf("finishing chunk = %v", last)
		}
	})
	t.Run("OpenRouter reasoning", func(t *testing.T) {
		s, _ := body(t, scripted.Reply(scripted.Reason("a b"), scripted.Signature("sig"), scripted.Say("x")))
		d := dataLines(t, s)[1]["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)
		det := d["reasoning_details"].([]any)[0].(map[string]any)
		if d["reasoning"] != "a " || det["text"] != "a " || det["type"] != "reasoning.text" || d["reasoning_content"] != nil {
			t.Errorf("delta = %v", d)
		}
		if !strings.Contains(s, `"signature":"sig"`) {
			t.Errorf("no signature fragment:\n%s", s)
		}
	})
	t.Run("comment flood", func(t *testing.T) {
		s, _ := body(t, scripted.Reply(scripted.CommentBytes(100000), scripted.Say("x")))
		if n := strings.Count(s, ": keep-alive\n\n"); n != 7143 {
			t.Errorf("%d comment lines, want 7143 (100000 bytes in whole lines)", n)
		}
		if len(dataLines(t, s)) != 4 {
			t.Errorf("data lines = %d", len(dataLines(t, s)))
		}
	})
	t.Run("web page", func(t *testing.T) {
		s, ct := body(t, scripted.Page("<html>hi</html>"))
		if s != "<html>hi</html>" || !strings.HasPrefix(ct, "text/html") {
			t.Errorf("page = %q, %q", s, ct)
		}
	})
}

package scripted_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// postGemini sends a Gemini request to srv and returns the response body.
func postGemini(t *testing.T, srv *scripted.Server, body string) string {
	t.Helper()
	resp, err := http.Post(srv.URL()+"beta/models/gemini-x:streamGenerateContent?alt=sse", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// A scripted reply is played in Gemini's stream shape on a Gemini path: a thought part, a
// text part, the calls whole in one chunk, then the finish with usageMetadata; no [DONE].
func TestGeminiDialect(t *testing.T) {
	srv := scripted.New(t, scripted.Reply(scripted.Think("plan"), scripted.Say("Looking."),
		scripted.Call("Shell", `{"command":"ls"}`), scripted.Call("Glob", `{"pattern":"*.go"}`),
		scripted.Usage(100, 30, 40), scripted.ReasoningTokens(10)))
	got := postGemini(t, srv, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	want := []string{
		`{"candidates":[{"content":{"parts":[{"text":"plan","thought":true}],"role":"model"},"index":0}],"modelVersion":"kimi-k2-turbo-preview"}`,
		`{"candidates":[{"content":{"parts":[{"text":"Looking."}],"role":"model"},"index":0}],"modelVersion":"kimi-k2-turbo-preview"}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"args":{"command":"ls"},"name":"Shell"}},{"functionCall":{"args":{"pattern":"*.go"},"name":"Glob"}}],"role":"model"},"index":0}],"modelVersion":"kimi-k2-turbo-preview"}`,
		`{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"modelVersion":"kimi-k2-turbo-preview","usageMetadata":{"cachedContentTokenCount":40,"candidatesTokenCount":20,"promptTokenCount":100,"thoughtsTokenCount":10,"totalTokenCount":130}}`,
	}
	var lines []string
	for _, ev := range strings.Split(strings.TrimSpace(got), "\r\n\r\n") {
		lines = append(lines, strings.TrimPrefix(ev, "data: "))
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("stream\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// Finish reasons, malformed arguments and streams in Gemini's own shape.
func TestGeminiDialectEdges(t *testing.T) {
	for _, tt := range []struct {
		name string
		resp scripted.Response
		want string // a fragment of the stream
		not  string
	}{
		{name: "length", resp: scripted.Reply(scripted.Say("a"), scripted.Finish("length")), want: `"finishReason":"MAX_TOKENS"`},
		{name: "content_filter", resp: scripted.Reply(scripted.Say("a"), scripted.Finish("content_filter")), want: `"finishReason":"SAFETY"`},
		{name: "arguments that are no object", resp: scripted.ToolCalls(scripted.Call("Shell", `{"command":`)),
			want: `"finishReason":"MALFORMED_FUNCTION_CALL"`, not: "functionCall"},
		{name: "a cut stream has no finish", resp: scripted.Reply(scripted.Say("half"), scripted.Cut()), want: `"text":"half"`, not: "finishReason"},
		{name: "native events pass as they are", resp: scripted.Events(`{"candidates": [{"content": {"parts": [{"text": "x"}]}}]}`),
			want: `data: {"candidates": [{"content": {"parts": [{"text": "x"}]}}]}` + "\r\n\r\n"},
		{name: "an error line passes", resp: scripted.Reply(scripted.Say("a"), scripted.Raw(`data: {"error":{"code":503,"status":"UNAVAILABLE"}}`+"\n\n")),
			want: `data: {"error":{"code":503,"status":"UNAVAILABLE"}}`},
		{name: "no [DONE]", resp: scripted.Text("a"), not: "[DONE]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := scripted.New(t, tt.resp)
			got := postGemini(t, srv, `{"contents":[]}`)
			if !strings.Contains(got, tt.want) || (tt.not != "" && strings.Contains(got, tt.not)) {
				t.Errorf("stream lacks %q or has %q:\n%s", tt.want, tt.not, got)
			}
		})
	}
}

// What a Gemini client sent reads as chat-completions messages, and its model from the path.
func TestGeminiRequestAsMessages(t *testing.T) {
	srv := scripted.New(t, scripted.Text("ok"))
	body := `{"systemInstruction":{"parts":[{"text":"be brief"}]},"contents":[` +
		`{"role":"user","parts":[{"text":"hi"}]},` +
		`{"role":"model","parts":[{"text":"hm","thought":true,"thoughtSignature":"c2ln"},{"text":"Looking."},{"functionCall":{"id":"c1","name":"Shell","args":{"command":"ls"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"Shell","response":{"output":"a.go"}}},{"text":"and?"}]}]}`
	postGemini(t, srv, body)
	req := srv.Requests()[0]
	msgs := req.Messages()
	for _, m := range msgs {
		delete(m, "parts")
	}
	got, _ := json.Marshal(msgs)
	want := `[{"content":"be brief","role":"system"},{"content":"hi","role":"user"},` +
		`{"content":"Looking.","reasoning_content":"hm","role":"assistant","tool_calls":[{"function":{"arguments":"{\"command\":\"ls\"}","name":"Shell"},"id":"c1","type":"function"}]},` +
		`{"content":"a.go","name":"Shell","role":"tool","tool_call_id":"c1"},{"content":"and?","role":"user"}]`
	if !bytes.Equal(got, []byte(want)) {
		t.Errorf("messages\n got %s\nwant %s", got, want)
	}
	if req.Model() != "gemini-x" {
		t.Errorf("model %q", req.Model())
	}
}

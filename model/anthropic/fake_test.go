package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/model"

	"github.com/kimi-run/kimi-run/tools"
)

// The local fake of the Messages API and the event builders the Anthropic tests share.

// fakeMessages is a local Messages API: it answers request i with answers[i] (the last one
// repeats) and keeps every request.
type fakeMessages struct {
	t       *testing.T
	srv     *httptest.Server
	answers []fakeAnswer
	mu      sync.Mutex
	reqs    []fakeRequest
}

type fakeAnswer struct {
	status int
	header map[string]string
	body   string
}

type fakeRequest struct {
	path   string
	header http.Header
	body   map[string]any
}

func newFakeMessages(t *testing.T, answers ...fakeAnswer) *fakeMessages {
	f := &fakeMessages{t: t, answers: answers}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body is not JSON: %v\n%s", err, raw)
		}
		f.mu.Lock()
		f.reqs = append(f.reqs, fakeRequest{path: r.URL.Path, header: r.Header.Clone(), body: body})
		a := f.answers[min(len(f.reqs), len(f.answers))-1]
		f.mu.Unlock()
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		if a.status == 0 {
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			a.status = 200
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeMessages) requests() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.reqs...)
}

// client is an Anthropic client of the fake server.
func (f *fakeMessages) client(mod func(*model.Config)) *Client {
	cfg := model.Config{Protocol: "anthropic", BaseURL: f.srv.URL, APIKey: "sk-ant-test", Model: "claude-sonnet-4-20250514", IdleTimeout: 5 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	return New(cfg)
}

// sse writes events the way the API does: an event line naming the type, the data line,
// a blank line.
func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var head struct{ Type string }
		if err := json.Unmarshal([]byte(e), &head); err != nil {
			panic(fmt.Sprintf("sse: %v: %s", err, e))
		}
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", head.Type, e)
	}
	return b.String()
}

const (
	evStart = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-20250514","stop_reason":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":1}}}`
	evPing  = `{"type": "ping"}`
	evStop  = `{"type":"message_stop"}`
)

func start(in, written, read int) string { return fmt.Sprintf(evStart, in, written, read) }

func textBlock(i int, parts ...string) []string {
	out := []string{fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i)}
	for _, p := range parts {
		q, _ := json.Marshal(p)
		out = append(out, fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, q))
	}
	return append(out, fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func thinkingBlock(i int, sig string, parts ...string) []string {
	out := []string{fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":"","signature":""}}`, i)}
	for _, p := range parts {
		q, _ := json.Marshal(p)
		out = append(out, fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":%s}}`, i, q))
	}
	out = append(out, fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":%q}}`, i, sig))
	return append(out, fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func toolBlock(i int, id, name string, pieces ...string) []string {
	out := []string{fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, i, id, name)}
	for _, p := range pieces {
		q, _ := json.Marshal(p)
		out = append(out, fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, q))
	}
	return append(out, fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func stopWith(reason string, out int) string {
	return fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, reason, out)
}

// message is a whole streamed message: start, blocks, stop reason, stop.
func message(reason string, blocks ...[]string) string {
	evs := []string{start(10, 0, 0), evPing}
	for _, b := range blocks {
		evs = append(evs, b...)
	}
	return sse(append(evs, stopWith(reason, 7), evStop)...)
}

// recorder is a Handler that keeps what it was given.
type recorder struct {
	text, thinking strings.Builder
	calls          []model.CallSpec
}

func (r *recorder) handler() model.Handler {
	return model.Handler{
		Text:     func(s string) { r.text.WriteString(s) },
		Thinking: func(s string) { r.thinking.WriteString(s) },
		ToolCall: func(c model.CallSpec) { r.calls = append(r.calls, c) },
	}
}

func userRequest(text string) model.Request {
	return model.Request{Messages: []model.Message{{Role: model.RoleSystem, Content: "be brief"}, {Role: model.RoleUser, Content: text}}}
}

type fakeTool struct{ name string }

func (f fakeTool) Name() string { return f.name }

func (f fakeTool) Description() string { return "does " + f.name }

func (f fakeTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
}

func (f fakeTool) Facts() tools.Facts { return tools.Facts{} }

func (f fakeTool) Run(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, nil
}

package model

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// FuzzStream serves arbitrary bytes as an SSE body to the real client. Whatever arrives,
// Stream must not panic or hang; a reply it accepts must be coherent: unique call ids, each
// call handed out once, and arguments in events that stay valid JSON.
func FuzzStream(f *testing.F) {
	seeds := []string{
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"Shell\",\"arguments\":\"{\\\"command\\\":\"}}]}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"ls\\\"}\"}}]}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"a\",\"function\":{\"name\":\"ReadFile\",\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"X\"}},{\"function\":{\"arguments\":\"[1\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
		": keep-alive\n\n\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":3}}\n\n",
		"data: {\"error\":{\"message\":\"overloaded\"}}\n\n",
		"data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"\\u0000\\ud800\"},\"finish_reason\":\"stop\"}]}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"cont",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	var (
		mu   sync.Mutex
		body []byte
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b := body
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(b)
	}))
	defer srv.Close()
	model := NewOpenAI(Config{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m", IdleTimeout: 5 * time.Second})

	f.Fuzz(func(t *testing.T, data []byte) {
		mu.Lock()
		body = data
		mu.Unlock()
		seen := map[string]int{}
		h := Handler{ToolCall: func(c CallSpec) {
			seen[c.ID]++
			if !json.Valid(c.ArgsJSON()) {
				t.Fatalf("event arguments not JSON: %q", c.Arguments)
			}
		}}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		reply, err := model.Stream(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "x"}}}, h)
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("stream hung")
		}
		if err != nil && !Retryable(err) {
			// The typed outcomes a run maps to an exit code: a provider's error, a finish
			// reason that is not an answer (exit 8), a body that is not an event stream.
			var pe *ProviderError
			var fe *FinishError
			var ee *EndpointError
			if !errors.As(err, &pe) && !errors.As(err, &fe) && !errors.As(err, &ee) {
				t.Fatalf("unclassified error %T: %v", err, err)
			}
		}
		ids := map[string]bool{}
		for _, c := range reply.ToolCalls {
			if ids[c.ID] {
				t.Fatalf("duplicate call id %q in %+v", c.ID, reply.ToolCalls)
			}
			ids[c.ID] = true
		}
		for id, n := range seen {
			if n != 1 {
				t.Fatalf("call %q handed out %d times", id, n)
			}
		}
	})
}

// FuzzParseArgs checks that argument decoding accepts exactly JSON objects (and empty text).
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{"", "{}", `{"a":1}`, "[]", "null", " {\"x\":\"\\u0000\"} ", "{", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, ok := ParseArgs(s)
		if !ok {
			return
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("ParseArgs accepted %q, not an object: %v", s, err)
		}
	})
}

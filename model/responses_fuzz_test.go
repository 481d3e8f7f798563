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

// FuzzResponsesStream is FuzzStream for the Responses API client: whatever the body, Stream
// must not panic or hang, must classify its failures, and a reply it accepts must hand out
// each call once under an id unique in the reply, with reasoning details that are JSON.
func FuzzResponsesStream(f *testing.F) {
	for _, s := range []string{
		`data: {"type":"response.output_text.delta","output_index":0,"delta":"hi"}` + "\n\n" +
			`data: {"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":3,"output_tokens":1}}}` + "\n\n",
		`data: {"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","call_id":"a","name":"Shell","arguments":""}}` + "\n\n" +
			`data: {"type":"response.function_call_arguments.delta","output_index":1,"delta":"{\"command\":"}` + "\n\n" +
			`data: {"type":"response.output_item.done","output_index":1,"item":{"type":"function_call","call_id":"a","name":"Shell","arguments":"{\"command\":\"ls\"}"}}` + "\n\n" +
			`data: {"type":"response.output_item.done","output_index":2,"item":{"type":"function_call","call_id":"a","name":"X","arguments":"[1"}}` + "\n\n" +
			`data: {"type":"response.completed","response":{"status":"completed","output":[{"type":"reasoning","summary":[{"text":"t"}],"encrypted_content":"E"}]}}` + "\n\n",
		`data: {"type":"response.incomplete","response":{"incomplete_details":{"reason":"content_filter"}}}` + "\n\n",
		`data: {"type":"response.failed","response":{"error":{"code":"server_error","message":"x"}}}` + "\n\n",
		`data: {"type":"error","code":"invalid_api_key","message":"no"}` + "\n\n",
		`{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"whole"}]}]}`,
		`data: {"type":"response.output_text.delta","delta":{"x":1}}` + "\n\n",
		`data: {"type":"response.output_item.done","output_index":0,"item":"`,
	} {
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
	m := NewResponses(Config{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m", IdleTimeout: 5 * time.Second})

	f.Fuzz(func(t *testing.T, data []byte) {
		mu.Lock()
		body = data
		mu.Unlock()
		seen := map[string]int{}
		h := Handler{ToolCall: func(c CallSpec) { seen[c.ID]++ }}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		reply, err := m.Stream(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "x"}}}, h)
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("stream hung")
		}
		if err != nil && !Retryable(err) {
			var pe *ProviderError
			var fe *FinishError
			var ee *EndpointError
			if !errors.As(err, &pe) && !errors.As(err, &fe) && !errors.As(err, &ee) {
				t.Fatalf("unclassified error %T: %v", err, err)
			}
		}
		ids := map[string]bool{}
		for _, c := range reply.ToolCalls {
			if ids[c.ID] || c.ID == "" {
				t.Fatalf("call id %q twice or empty in %+v", c.ID, reply.ToolCalls)
			}
			ids[c.ID] = true
		}
		for id, n := range seen {
			if n != 1 {
				t.Fatalf("call %q handed out %d times", id, n)
			}
		}
		if reply.ReasoningDetails != nil && !json.Valid(reply.ReasoningDetails) {
			t.Fatalf("reasoning details not JSON: %s", reply.ReasoningDetails)
		}
	})
}

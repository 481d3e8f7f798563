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

// FuzzGemini serves arbitrary bytes as the body of a Gemini stream to the real client.
// Whatever arrives, Stream must not panic or hang; an error must be one a run can judge;
// a reply's calls must have unique ids, each handed out once, with arguments that stay
// valid JSON in events (arguments that are no object reach the tool as they came, and its
// error result tells the model, as for chat completions); and what it keeps to send back
// must be valid JSON.
func FuzzGemini(f *testing.F) {
	for _, s := range []string{
		`data: {"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"finishReason":"STOP","index":0}]}` + "\r\n\r\n",
		`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"Shell","args":{"command":"ls"},"id":"a"},"thoughtSignature":"c2ln"},{"functionCall":{"name":"Glob","args":null,"id":"a"}}]},"finishReason":"STOP"}]}` + "\n\n",
		`data: {"candidates":[{"content":{"parts":[{"text":"t","thought":true},{"functionCall":{"args":[1]}}]}}]}` + "\n\n",
		`data: {"promptFeedback":{"blockReason":"SAFETY"}}` + "\n\n",
		`data: {"error":{"code":503,"status":"UNAVAILABLE"}}` + "\n\n",
		`[{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"MAX_TOKENS"}]}]`,
		`data: {"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL"}],"usageMetadata":{"promptTokenCount":"7","thoughtsTokenCount":1.5}}` + "\n\n",
		`data: {"candidates":[{"content":{"parts":[{"te`,
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
	g := NewGemini(Config{Protocol: "gemini", BaseURL: srv.URL + "/v1beta", APIKey: "k", Model: "m", IdleTimeout: 5 * time.Second})

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
		reply, err := g.Stream(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "x"}}}, h)
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
			if ids[c.ID] {
				t.Fatalf("duplicate call id %q", c.ID)
			}
			ids[c.ID] = true
		}
		for id, n := range seen {
			if n != 1 {
				t.Fatalf("call %q handed out %d times", id, n)
			}
		}
		if reply.ReasoningDetails != nil && !json.Valid(reply.ReasoningDetails) {
			t.Fatalf("signatures kept are not JSON: %s", reply.ReasoningDetails)
		}
	})
}

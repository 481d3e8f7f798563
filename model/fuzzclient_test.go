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

// fuzzClient is one protocol's client under fuzzStream.
type fuzzClient struct {
	// newModel builds the client for the fuzz server's URL.
	newModel func(url string) Model
	// hung is how long a call may take before it counts as hung; 10 s when zero.
	hung time.Duration
	// typed says an error that is not retried is one of the outcomes a run maps to an
	// exit code; nil accepts a *ProviderError, *FinishError or *EndpointError.
	typed func(error) bool
	// check adds the protocol's own checks of a reply.
	check func(t *testing.T, r Reply)
}

// fuzzStream serves each input as the body of a streamed answer to the real client and
// checks what every protocol promises, whatever arrives: Stream does not panic or hang,
// a failure is typed, the reply's call ids are unique, each call is handed out once, and
// its arguments stay valid JSON in events.
func fuzzStream(f *testing.F, seeds []string, c fuzzClient) {
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
	f.Cleanup(srv.Close)
	m := c.newModel(srv.URL)
	hung := c.hung
	if hung == 0 {
		hung = 10 * time.Second
	}
	typed := c.typed
	if typed == nil {
		typed = func(err error) bool {
			var pe *ProviderError
			var fe *FinishError
			var ee *EndpointError
			return errors.As(err, &pe) || errors.As(err, &fe) || errors.As(err, &ee)
		}
	}

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
		ctx, cancel := context.WithTimeout(context.Background(), hung)
		defer cancel()
		reply, err := m.Stream(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "x"}}}, h)
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("stream hung")
		}
		if err != nil && !Retryable(err) && !typed(err) {
			t.Fatalf("unclassified error %T: %v", err, err)
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
		if c.check != nil {
			c.check(t, reply)
		}
	})
}

// reasoningIsJSON is the check of a protocol that keeps reasoning to send back raw.
func reasoningIsJSON(t *testing.T, r Reply) {
	if r.ReasoningDetails != nil && !json.Valid(r.ReasoningDetails) {
		t.Fatalf("reasoning kept to send back is not JSON: %s", r.ReasoningDetails)
	}
}

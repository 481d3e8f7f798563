// Package modeltest holds what the protocol packages' tests share: a fuzz harness that
// serves arbitrary bytes to a real client and checks what every protocol promises.
package modeltest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/model"
)

// FuzzClient is one protocol's client under FuzzStream.
type FuzzClient struct {
	// NewModel builds the client for the fuzz server's URL.
	NewModel func(url string) model.Model
	// Hung is how long a call may take before it counts as hung; 10 s when zero.
	Hung time.Duration
	// Typed says an error that is not retried is one of the outcomes a run maps to an
	// exit code; nil accepts a *model.ProviderError, *model.FinishError or *model.EndpointError.
	Typed func(error) bool
	// Check adds the protocol's own checks of a reply.
	Check func(t *testing.T, r model.Reply)
}

// FuzzStream serves each input as the body of a streamed answer to the real client and
// checks what every protocol promises, whatever arrives: Stream does not panic or hang,
// a failure is typed, the reply's call ids are unique, each call is handed out once, and
// its arguments stay valid JSON in events.
func FuzzStream(f *testing.F, seeds []string, c FuzzClient) {
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
	m := c.NewModel(srv.URL)
	hung := c.Hung
	if hung == 0 {
		hung = 10 * time.Second
	}
	typed := c.Typed
	if typed == nil {
		typed = func(err error) bool {
			var pe *model.ProviderError
			var fe *model.FinishError
			var ee *model.EndpointError
			return errors.As(err, &pe) || errors.As(err, &fe) || errors.As(err, &ee)
		}
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		mu.Lock()
		body = data
		mu.Unlock()
		seen := map[string]int{}
		h := model.Handler{ToolCall: func(c model.CallSpec) {
			seen[c.ID]++
			if !json.Valid(c.ArgsJSON()) {
				t.Fatalf("event arguments not JSON: %q", c.Arguments)
			}
		}}
		ctx, cancel := context.WithTimeout(context.Background(), hung)
		defer cancel()
		reply, err := m.Stream(ctx, model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "x"}}}, h)
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("stream hung")
		}
		if err != nil && !model.Retryable(err) && !typed(err) {
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
		if c.Check != nil {
			c.Check(t, reply)
		}
	})
}

// ReasoningIsJSON is the check of a protocol that keeps reasoning to send back raw.
func ReasoningIsJSON(t *testing.T, r model.Reply) {
	if r.ReasoningDetails != nil && !json.Valid(r.ReasoningDetails) {
		t.Fatalf("reasoning kept to send back is not JSON: %s", r.ReasoningDetails)
	}
}

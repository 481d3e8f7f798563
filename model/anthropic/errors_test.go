package anthropic

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/model"
)

// Every stop_reason the API documents maps onto an outcome of the loop.
func TestAnthropicStopReasons(t *testing.T) {
	tests := []struct {
		reason, finish string
		filtered       bool
	}{
		{reason: "end_turn", finish: "stop"},
		{reason: "stop_sequence", finish: "stop"},
		{reason: "tool_use", finish: "tool_calls"},
		{reason: "max_tokens", finish: "length"},
		{reason: "model_context_window_exceeded", finish: "length"},
		{reason: "refusal", filtered: true},
		{reason: "some_new_reason", filtered: true},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			blocks := [][]string{textBlock(0, "partial answer")}
			if tt.reason == "tool_use" {
				blocks = append(blocks, toolBlock(1, "toolu_9", "ReadFile", `{"path":"a"}`))
			}
			f := newFakeMessages(t, fakeAnswer{body: message(tt.reason, blocks...)})
			reply, err := f.client(nil).Stream(context.Background(), userRequest("x"), model.Handler{})
			var fe *model.FinishError
			if tt.filtered {
				if !errors.As(err, &fe) || fe.Reason != tt.reason || model.Retryable(err) {
					t.Fatalf("err = %v, want a model.FinishError %q, not retried", err, tt.reason)
				}
				return
			}
			if err != nil || reply.FinishReason != tt.finish {
				t.Fatalf("finish = %q, err = %v; want %q", reply.FinishReason, err, tt.finish)
			}
		})
	}
}

// pause_turn: the turn so far goes back as the last assistant message and the model goes
// on; the reply is the whole turn and its usage the sum of both requests.
func TestAnthropicPauseTurnContinues(t *testing.T) {
	f := newFakeMessages(t,
		fakeAnswer{body: message("pause_turn", textBlock(0, "Searching… "))},
		fakeAnswer{body: message("end_turn", textBlock(0, "found it."))})
	var rec recorder
	reply, err := f.client(nil).Stream(context.Background(), userRequest("find"), rec.handler())
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "Searching… found it." || rec.text.String() != reply.Text || reply.FinishReason != "stop" {
		t.Errorf("reply = %+v", reply)
	}
	if reply.Usage.InputTokens != 20 || reply.Usage.OutputTokens != 14 {
		t.Errorf("usage = %+v", reply.Usage)
	}
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[1].body["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if last["role"] != "assistant" || !reflect.DeepEqual(last["content"], []any{map[string]any{"type": "text", "text": "Searching… ", "cache_control": map[string]any{"type": "ephemeral"}}}) {
		t.Errorf("paused turn sent back = %v", last)
	}

	// A turn that never stops pausing ends as not an answer, without a retry.
	f = newFakeMessages(t, fakeAnswer{body: message("pause_turn", textBlock(0, "still going "))})
	_, err = f.client(nil).Stream(context.Background(), userRequest("find"), model.Handler{})
	var fe *model.FinishError
	if !errors.As(err, &fe) || model.Retryable(err) || len(f.requests()) != maxPauses+1 {
		t.Errorf("err = %v after %d requests", err, len(f.requests()))
	}
}

// Error answers and error events map onto the error types that decide retries and exit
// codes; the wait the provider asks for is kept.
func TestAnthropicErrors(t *testing.T) {
	errBody := func(typ, msg string) string {
		return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`, typ, msg)
	}
	tests := []struct {
		name       string
		answer     fakeAnswer
		status     int
		retry      bool
		auth       bool
		quota      bool
		retryAfter int64
		says       string
	}{
		{name: "overloaded 529", answer: fakeAnswer{status: 529, header: map[string]string{"Content-Type": "application/json", "Retry-After": "3"}, body: errBody("overloaded_error", "Overloaded")},
			status: 529, retry: true, retryAfter: 3000, says: "Overloaded [overloaded_error]"},
		{name: "rate limit 429", answer: fakeAnswer{status: 429, header: map[string]string{"Content-Type": "application/json", "retry-after": "17"}, body: errBody("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")},
			status: 429, retry: true, retryAfter: 17000, says: "per-minute rate limit"},
		{name: "api error 500", answer: fakeAnswer{status: 500, header: map[string]string{"Content-Type": "application/json"}, body: errBody("api_error", "Internal server error")},
			status: 500, retry: true, retryAfter: -1},
		{name: "bad key 401", answer: fakeAnswer{status: 401, header: map[string]string{"Content-Type": "application/json"}, body: errBody("authentication_error", "invalid x-api-key")},
			status: 401, auth: true, retryAfter: -1, says: "invalid x-api-key"},
		{name: "permission 403", answer: fakeAnswer{status: 403, header: map[string]string{"Content-Type": "application/json"}, body: errBody("permission_error", "Your API key does not have permission to use the specified resource.")},
			status: 403, auth: true, retryAfter: -1},
		{name: "billing 402", answer: fakeAnswer{status: 402, header: map[string]string{"Content-Type": "application/json"}, body: errBody("billing_error", "Your credit balance is too low")},
			status: 402, quota: true, retryAfter: -1},
		{name: "invalid request 400", answer: fakeAnswer{status: 400, header: map[string]string{"Content-Type": "application/json"}, body: errBody("invalid_request_error", "max_tokens: 64001 > 64000, which is the maximum allowed")},
			status: 400, retryAfter: -1, says: "max_tokens: 64001"},
		{name: "too large 413", answer: fakeAnswer{status: 413, header: map[string]string{"Content-Type": "application/json"}, body: errBody("request_too_large", "Request exceeds the maximum allowed number of bytes.")},
			status: 413, retryAfter: -1},
		{name: "error event mid-stream", answer: fakeAnswer{body: sse(append(append([]string{start(5, 0, 0)}, textBlock(0, "par")[:2]...), errBody("overloaded_error", "Overloaded"))...)},
			status: 0, retry: true, retryAfter: -1, says: "Overloaded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMessages(t, tt.answer)
			var rec recorder
			_, err := f.client(nil).Stream(context.Background(), userRequest("x"), rec.handler())
			var pe *model.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v (%T), want a model.ProviderError", err, err)
			}
			if pe.StatusCode != tt.status || model.Retryable(err) != tt.retry || pe.Auth() != tt.auth || pe.Quota() != tt.quota || pe.RetryAfter != tt.retryAfter {
				t.Errorf("error %v: status %d retry %v auth %v quota %v retry-after %d", err, pe.StatusCode, model.Retryable(err), pe.Auth(), pe.Quota(), pe.RetryAfter)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("error %q does not say %q", err, tt.says)
			}
		})
	}
}

// A stream cut before its stop reason is an incomplete reply (retried); the complete calls
// of it come back with the error.
func TestAnthropicCutStream(t *testing.T) {
	body := sse(append(append([]string{start(5, 0, 0)}, toolBlock(0, "toolu_a", "Shell", `{"command":"ls"}`)...), textBlock(1, "and")[:2]...)...)
	f := newFakeMessages(t, fakeAnswer{body: body})
	reply, err := f.client(nil).Stream(context.Background(), userRequest("x"), model.Handler{})
	if !errors.Is(err, model.ErrIncompleteStream) || !model.Retryable(err) {
		t.Fatalf("err = %v", err)
	}
	if len(reply.ToolCalls) != 1 || reply.ToolCalls[0].ID != "toolu_a" {
		t.Errorf("partial calls = %+v", reply.ToolCalls)
	}
	// Garbage where an event should be is a cut stream as well.
	f = newFakeMessages(t, fakeAnswer{body: sse(start(5, 0, 0)) + "data: {\"type\":\"content_block_delta\",\n\n"})
	if _, err := f.client(nil).Stream(context.Background(), userRequest("x"), model.Handler{}); !errors.Is(err, model.ErrIncompleteStream) {
		t.Errorf("garbled line: err = %v", err)
	}
}

// A server that only pings is stalled: pings do not reset the idle timer.
func TestAnthropicPingsAreNotProgress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sse(start(5, 0, 0)))
		for {
			if _, err := io.WriteString(w, sse(evPing)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	m := New(model.Config{Protocol: "anthropic", BaseURL: srv.URL, APIKey: "k", Model: "m", IdleTimeout: 300 * time.Millisecond})
	_, err := m.Stream(context.Background(), userRequest("x"), model.Handler{})
	if !errors.Is(err, model.ErrStreamIdle) || !model.Retryable(err) {
		t.Fatalf("err = %v, want the idle timeout", err)
	}
}

// The reply's size cap holds for this protocol too: text, thinking and arguments count.
func TestAnthropicReplySizeCap(t *testing.T) {
	big := strings.Repeat("x", 600)
	f := newFakeMessages(t, fakeAnswer{body: message("end_turn", thinkingBlock(0, "sig", big), textBlock(1, big))})
	_, err := f.client(func(c *model.Config) { c.MaxReplyBytes = 1000 }).Stream(context.Background(), userRequest("x"), model.Handler{})
	var tl *model.ReplyTooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, model.ErrIncompleteStream) {
		t.Fatalf("err = %v, want model.ReplyTooLargeError", err)
	}
}

// Empty replies (no text, no calls; a thought alone) are retried as for chat completions.
func TestAnthropicEmptyReply(t *testing.T) {
	f := newFakeMessages(t, fakeAnswer{body: message("end_turn", thinkingBlock(0, "s", "hmm"))})
	if _, err := f.client(nil).Stream(context.Background(), userRequest("x"), model.Handler{}); !errors.Is(err, model.ErrEmptyReply) {
		t.Fatalf("err = %v", err)
	}
}

// A web page where the API should be (a base URL pointing at a console) is said so, once,
// not retried as a cut stream.
func TestAnthropicWebPage(t *testing.T) {
	f := newFakeMessages(t, fakeAnswer{status: 200, header: map[string]string{"Content-Type": "text/html; charset=utf-8"}, body: "<html><body>Console</body></html>"})
	_, err := f.client(nil).Stream(context.Background(), userRequest("x"), model.Handler{})
	var ee *model.EndpointError
	if !errors.As(err, &ee) || model.Retryable(err) || !strings.HasSuffix(ee.URL, "/v1/messages") {
		t.Fatalf("err = %v (%T)", err, err)
	}
}

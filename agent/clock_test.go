package agent_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/model"
)

// These tests run the real client (go-openai under model.OpenAI, and the Agent's retry loop
// with its real timer) on synctest's fake clock. The provider is an in-memory
// http.RoundTripper, as a socket would never let the bubble's clock move; what it sends and
// when is written as a script of sleeps. Timeouts and backoff waits are checked to the
// nanosecond with no real waiting. The same behaviour end to end, over loopback and the
// real clock: run/'s TestStalledStreamsAreRetried and TestExitCodes.

// sse is one scripted answer of the in-memory provider.
type sse struct {
	status int               // 0: 200 with an event stream
	header map[string]string // extra response headers
	body   string            // the body of a non-200 answer
	// stream writes the event stream; it may sleep (fake time) between writes. It returns
	// when done, or once ctx, the request's, ends (a write fails then too).
	stream func(ctx context.Context, w io.Writer)
	// noHeaders holds the answer back until the request is cancelled.
	noHeaders bool
}

// fakeProvider answers model requests from a script, one sse per request.
type fakeProvider struct {
	script   []sse
	requests int
}

func (p *fakeProvider) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	if p.requests >= len(p.script) {
		return nil, fmt.Errorf("request %d: the script has only %d answers", p.requests+1, len(p.script))
	}
	a := p.script[p.requests]
	p.requests++
	ctx := r.Context()
	if a.noHeaders {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	h := http.Header{}
	for k, v := range a.header {
		h.Set(k, v)
	}
	if a.status != 0 {
		h.Set("Content-Type", "application/json")
		return &http.Response{StatusCode: a.status, Header: h, Body: io.NopCloser(strings.NewReader(a.body)), Request: r}, nil
	}
	h.Set("Content-Type", "text/event-stream")
	pr, pw := io.Pipe()
	go func() {
		a.stream(ctx, pw)
		pw.Close()
	}()
	// As a real transport does: the body fails once the request is cancelled.
	go func() {
		<-ctx.Done()
		pw.CloseWithError(ctx.Err())
	}()
	return &http.Response{StatusCode: http.StatusOK, Header: h, Body: pr, Request: r}, nil
}

// pause waits d of fake time, or less when ctx ends first; it reports whether d passed.
func pause(ctx context.Context, d time.Duration) bool {
	select {
	case <-time.After(d):
		return true
	case <-ctx.Done():
		return false
	}
}

func chunk(w io.Writer, text string) {
	fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":null}]}\n\n", text)
}

func finish(w io.Writer) {
	io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
}

// answer is a whole one-chunk reply.
func answer(text string) sse {
	return sse{stream: func(_ context.Context, w io.Writer) { chunk(w, text); finish(w) }}
}

func fakeModel(p *fakeProvider, idle time.Duration) *model.OpenAI {
	return model.NewOpenAI(model.Config{BaseURL: "http://provider.test/v1", APIKey: "sk-test", Model: "m",
		IdleTimeout: idle, HTTPClient: &http.Client{Transport: p}})
}

func TestStreamIdleTimeoutOnTheFakeClock(t *testing.T) {
	const idle = 2 * time.Minute
	tests := []struct {
		name    string
		answer  sse
		elapsed time.Duration // when the call ends
		idle    bool          // with ErrStreamIdle, else with the answer
	}{
		{name: "silent after the first chunk", elapsed: 10*time.Second + idle, idle: true,
			answer: sse{stream: func(ctx context.Context, w io.Writer) { pause(ctx, 10*time.Second); chunk(w, "I will"); <-ctx.Done() }}},
		{name: "headers never come", elapsed: idle, idle: true, answer: sse{noHeaders: true}},
		{name: "keep-alives are no sign of progress", elapsed: 5*time.Second + idle, idle: true,
			answer: sse{stream: func(ctx context.Context, w io.Writer) {
				pause(ctx, 5*time.Second)
				chunk(w, "I will")
				for pause(ctx, 10*time.Second) {
					io.WriteString(w, ": keep-alive\n\n")
				}
			}}},
		{name: "slow but never idle for the whole timeout", elapsed: 5 * (idle - time.Second),
			answer: sse{stream: func(ctx context.Context, w io.Writer) {
				for range 5 {
					if !pause(ctx, idle-time.Second) {
						return
					}
					chunk(w, "word ")
				}
				finish(w)
			}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := fakeModel(&fakeProvider{script: []sse{tt.answer}}, idle)
				start := time.Now()
				reply, err := m.Stream(t.Context(), model.Request{Messages: []model.Message{{Role: "user", Content: "x"}}}, model.Handler{})
				if got := time.Since(start); got != tt.elapsed {
					t.Errorf("the call ended after %v, want %v", got, tt.elapsed)
				}
				if tt.idle {
					if !errors.Is(err, model.ErrStreamIdle) || !strings.Contains(err.Error(), "after 2m0s") {
						t.Errorf("err = %v, want the idle timeout after 2m0s", err)
					}
					return
				}
				if err != nil || reply.Text != "word word word word word " {
					t.Errorf("reply %q, err %v", reply.Text, err)
				}
			})
		})
	}
}

func TestRetryBackoffOnTheRealTimer(t *testing.T) {
	serverError := sse{status: 500, body: `{"error":{"message":"boom","type":"server_error"}}`}
	tests := []struct {
		name   string
		script []sse
		waits  []int64 // the retry events' delay_ms
	}{
		{name: "doubling from the base delay", script: []sse{serverError, serverError, answer("ok")}, waits: []int64{1000, 2000}},
		{name: "Retry-After wins", script: []sse{{status: 429, header: map[string]string{"Retry-After": "7"},
			body: `{"error":{"message":"slow down","type":"rate_limit"}}`}, answer("ok")}, waits: []int64{7000}},
		{name: "Retry-After capped by the maximum", script: []sse{{status: 429, header: map[string]string{"Retry-After": "3600"},
			body: `{"error":{"message":"slow down","type":"rate_limit"}}`}, answer("ok")}, waits: []int64{60_000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := &fakeProvider{script: tt.script}
				sink := &testkit.Recorder{}
				a := &agent.Agent{
					Model:    fakeModel(p, time.Minute),
					Sink:     sink,
					MaxSteps: 10,
					// No Timer: the real one, on the bubble's clock. No jitter, so the
					// waits are exact.
					Retry: agent.RetryPolicy{Attempts: 3, BaseDelay: time.Second, MaxDelay: time.Minute,
						Jitter: func(time.Duration) time.Duration { return 0 }},
				}
				start := time.Now()
				out, err := a.Turn(context.Background(), event.TurnSpec{Prompt: "x"})
				if err != nil || out.FinalText != "ok" {
					t.Fatalf("outcome %+v, err %v", out, err)
				}
				var want time.Duration
				for _, ms := range tt.waits {
					want += time.Duration(ms) * time.Millisecond
				}
				if got := time.Since(start); got != want {
					t.Errorf("the turn took %v, want exactly the waits, %v", got, want)
				}
				var got []int64
				for _, e := range sink.Of(event.TypeRetry) {
					got = append(got, e.Data.(event.Retry).DelayMS)
				}
				if fmt.Sprint(got) != fmt.Sprint(tt.waits) {
					t.Errorf("retry delays %v ms, want %v", got, tt.waits)
				}
				if p.requests != len(tt.script) {
					t.Errorf("%d requests, want %d", p.requests, len(tt.script))
				}
			})
		})
	}
}

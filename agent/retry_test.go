package agent_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
)

func TestRetryAfterHonoured(t *testing.T) {
	h := newHarness(t, scripted.Scenario(t, "retry-after"))
	out, err := h.turn(t, "hi")
	if err != nil {
		t.Fatal(err)
	}
	if out.FinalText != "Answered after one retry." {
		t.Errorf("final = %q", out.FinalText)
	}
	if len(h.timer.d) != 1 || h.timer.d[0] != time.Second {
		t.Errorf("waits = %v, want [1s] from Retry-After", h.timer.d)
	}
	r := h.sink.Of(event.TypeRetry)
	if len(r) != 1 {
		t.Fatalf("retry events = %d", len(r))
	}
	ev := r[0].Data.(event.Retry)
	if ev.HTTPStatus != 429 || ev.DelayMS != 1000 || ev.Attempt != 1 || ev.MaxAttempts != 3 {
		t.Errorf("retry event = %+v", ev)
	}
}

func TestRetryAfterCapped(t *testing.T) {
	h := newHarness(t, []scripted.Response{
		scripted.Status(429, scripted.ErrorBody("rate_limit", "slow down")).Header("Retry-After", "3600"),
		scripted.Text("ok"),
	})
	h.agent.Retry.MaxDelay = 5 * time.Second
	if _, err := h.turn(t, "hi"); err != nil {
		t.Fatal(err)
	}
	if len(h.timer.d) != 1 || h.timer.d[0] != 5*time.Second {
		t.Errorf("waits = %v, want [5s]", h.timer.d)
	}
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name      string
		scenario  []scripted.Response
		requests  int
		status    int
		retryable bool
		sentinel  error
		auth      bool
		message   string
	}{
		{name: "500 forever", scenario: scripted.Scenario(t, "server-error-forever"), requests: 3, status: 500, retryable: true},
		{name: "401", scenario: scripted.Scenario(t, "unauthorized"), requests: 1, status: 401, auth: true},
		{name: "400", scenario: []scripted.Response{scripted.Status(400, scripted.ErrorBody("invalid_request_error", "bad"))}, requests: 1, status: 400},
		{name: "401 with error as a string", scenario: scripted.Scenario(t, "unauthorized-bare"), requests: 1, status: 401, auth: true, message: "Unauthorized"},
		{name: "500 with error and message side by side", scenario: scripted.Scenario(t, "server-error-flat"), requests: 3, status: 500, retryable: true,
			message: "SyntaxError: Unexpected token < in JSON at position 0"},
		{name: "invalid_api_key in a 200 stream", scenario: scripted.Scenario(t, "stream-auth-error"), requests: 1, auth: true, message: "Incorrect API key provided"},
		{name: "cut forever", scenario: []scripted.Response{scripted.Reply(scripted.Say("partial"), scripted.Cut()).Forever()}, requests: 3, retryable: true, sentinel: model.ErrIncompleteStream},
		{name: "empty reply", scenario: []scripted.Response{scripted.Reply(scripted.Say("")).Forever()}, requests: 3, retryable: true, sentinel: model.ErrEmptyReply},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.scenario)
			_, err := h.turn(t, "hi")
			var ae *agent.AttemptsError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want an AttemptsError", err)
			}
			if got := model.Retryable(ae.Err); got != tt.retryable {
				t.Errorf("retryable = %v, want %v (%v)", got, tt.retryable, err)
			}
			if n := len(h.srv.Requests()); n != tt.requests {
				t.Errorf("server got %d requests, want %d", n, tt.requests)
			}
			if tt.status != 0 {
				var pe *model.ProviderError
				if !errors.As(err, &pe) || pe.StatusCode != tt.status {
					t.Errorf("err = %v, want HTTP %d", err, tt.status)
				}
			}
			if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
				t.Errorf("err = %v, want %v", err, tt.sentinel)
			}
			var pe *model.ProviderError
			if errors.As(err, &pe) && pe.Auth() != tt.auth {
				t.Errorf("Auth() = %v, want %v (%v)", pe.Auth(), tt.auth, err)
			}
			if tt.message != "" && (pe == nil || pe.Message != tt.message) {
				t.Errorf("err = %v, want the message %q", err, tt.message)
			}
			if strings.Contains(err.Error(), "sk-test") {
				t.Errorf("error quotes the API key: %v", err)
			}
		})
	}
}

func TestCutStreamRetried(t *testing.T) {
	h := newHarness(t, scripted.Scenario(t, "cut-stream"))
	out, err := h.turn(t, "hi")
	if err != nil {
		t.Fatal(err)
	}
	if out.FinalText != "Second try worked." {
		t.Errorf("final = %q", out.FinalText)
	}
	if len(h.sink.Of(event.TypeRetry)) != 1 {
		t.Errorf("want one retry event")
	}
}

func TestKeepAliveStorm(t *testing.T) {
	h := newHarness(t, scripted.Scenario(t, "keepalive-storm"))
	out, err := h.turn(t, "hi")
	if err != nil {
		t.Fatal(err)
	}
	if out.FinalText != "Sorry for the wait, here is the answer." || len(h.srv.Requests()) != 1 {
		t.Errorf("final = %q after %d requests", out.FinalText, len(h.srv.Requests()))
	}
}

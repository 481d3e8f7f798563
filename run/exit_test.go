package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/agent/answerschema"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/kimilogin"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/ralph"
	"github.com/kimi-run/kimi-run/session"
	"github.com/kimi-run/kimi-run/skills"
)

// TestJudge maps every kind of outcome to its exit code and terminal reason, without a
// process: the end-to-end tests drive the binary into each code, this pins the mapping.
func TestJudge(t *testing.T) {
	t.Parallel()
	transient := &agent.AttemptsError{Attempts: 3, Err: &model.ProviderError{StatusCode: 503, Message: "overloaded", RetryAfter: -1}}
	tests := []struct {
		name      string
		out       outcome
		err       error
		cause     error
		code      ExitCode
		reason    string
		kind      string
		retryable bool
		status    int
		message   string // when set, the result's message exactly
	}{
		{name: "completed", out: outcome{stop: event.StopCompleted}, code: ExitOK, reason: "completed"},
		{name: "max steps", out: outcome{stop: event.StopMaxSteps}, code: ExitMaxSteps, reason: "max_steps", kind: "max_steps"},
		{name: "repeat", out: outcome{stop: event.StopRepeat}, code: ExitMaxSteps, reason: "repeat", kind: "repeat"},
		{name: "truncated", out: outcome{stop: event.StopTruncated}, code: ExitMaxSteps, reason: "truncated", kind: "truncated"},
		{name: "ralph stop", out: outcome{flow: true, flowResult: ralph.Result{Outcome: ralph.OutcomeStop}}, code: ExitOK, reason: "stop"},
		{name: "flow completed", out: outcome{flow: true, flowResult: ralph.Result{Outcome: ralph.OutcomeCompleted}}, code: ExitOK, reason: "completed"},
		{name: "ralph budget", out: outcome{flow: true, flowResult: ralph.Result{Outcome: ralph.OutcomeBudgetExhausted, Iterations: 4}},
			code: ExitBudget, reason: "max_iterations", kind: "max_iterations"},
		{name: "flow turn hit max steps", out: outcome{flow: true, stop: event.StopMaxSteps, flowResult: ralph.Result{Outcome: ralph.OutcomeTurnStopped}},
			code: ExitMaxSteps, reason: "max_steps", kind: "max_steps"},
		{name: "usage", err: usagef("empty prompt"), code: ExitUsage, reason: "error", kind: "usage"},
		{name: "skill error wrapped as usage", err: usagef("%w", &skills.Error{Name: "x", Err: errors.New("no such skill")}),
			code: ExitUsage, reason: "error", kind: "usage"},
		{name: "session in use", err: &session.BusyError{Msg: "session s is in use by another run"}, code: ExitTransient, reason: "busy", kind: "busy", retryable: true},
		{name: "401", err: &agent.AttemptsError{Attempts: 3, Err: &model.ProviderError{StatusCode: 401, RetryAfter: -1}},
			code: ExitAuth, reason: "auth", kind: "auth", status: 401},
		{name: "403", err: &model.ProviderError{StatusCode: 403, RetryAfter: -1}, code: ExitAuth, reason: "auth", kind: "auth", status: 403},
		{name: "transient after retries", err: transient, code: ExitTransient, reason: "transient", kind: "transient", retryable: true, status: 503},
		{name: "cut stream after retries", err: &agent.AttemptsError{Attempts: 3, Err: model.ErrIncompleteStream},
			code: ExitTransient, reason: "transient", kind: "transient", retryable: true},
		{name: "400", err: &agent.AttemptsError{Attempts: 3, Err: &model.ProviderError{StatusCode: 400, Message: "bad", RetryAfter: -1}},
			code: ExitError, reason: "error", kind: "provider", status: 400},
		{name: "internal", err: fmt.Errorf("tool Shell: %w", errors.New("boom")), code: ExitError, reason: "error", kind: "error"},
		{name: "SIGINT wins over the error it caused", err: context.Canceled, cause: &signalError{sig: os.Interrupt},
			code: ExitInterrupt, reason: "cancelled", kind: "cancelled"},
		{name: "SIGTERM", err: transient, cause: &signalError{sig: syscall.SIGTERM}, code: ExitTerminated, reason: "cancelled", kind: "cancelled"},
		{name: "timeout", err: context.Canceled, cause: errTimeout, code: ExitTimeout, reason: "timeout", kind: "timeout"},
		{name: "budget inside a flow node", err: fmt.Errorf("flow node %q: %w", "R1", &agent.AttemptsError{Attempts: 3, Err: &model.BudgetError{Kind: model.BudgetTokens, Limit: 10, Spent: 9, Next: 5}}),
			code: ExitSpend, reason: "budget", kind: "budget"},
		{name: "timeout after success is still a timeout", out: outcome{stop: event.StopCompleted}, cause: errTimeout,
			code: ExitTimeout, reason: "timeout", kind: "timeout"},
		// One row per rule of the table (issue 28 #5).
		{name: "replay diverged", err: fmt.Errorf("step: %w", &replayError{unused: 1, total: 2}), code: ExitError, reason: "error", kind: "replay",
			message: "replay: the run ended with 1 of the cassette's 2 model calls unplayed (--replay-mode lenient allows that)"},
		{name: "replay as the cause", err: context.Canceled, cause: &replayError{unused: 1, total: 2}, code: ExitError, reason: "error", kind: "replay"},
		{name: "hook blocked", err: &hookBlockedError{reason: "no"}, code: ExitError, reason: "error", kind: "hook"},
		{name: "login expired", err: fmt.Errorf("login: %w", kimilogin.ErrExpired), code: ExitAuth, reason: "auth", kind: "auth"},
		{name: "login not refreshed", err: fmt.Errorf("login: %w", kimilogin.ErrRefresh), code: ExitTransient, reason: "transient", kind: "transient", retryable: true},
		{name: "quota", err: &agent.AttemptsError{Attempts: 1, Err: &model.ProviderError{StatusCode: 402, RetryAfter: -1}},
			code: ExitAuth, reason: "quota", kind: "quota", status: 402},
		{name: "filtered", err: fmt.Errorf("step 2: %w", &model.FinishError{Reason: "content_filter"}), code: ExitFiltered, reason: "filtered", kind: "filtered"},
		{name: "endpoint is a web page", err: fmt.Errorf("call: %w", &model.EndpointError{URL: "https://x.example/", ContentType: "text/html"}),
			code: ExitError, reason: "error", kind: "config", message: (&model.EndpointError{URL: "https://x.example/", ContentType: "text/html"}).Error()},
		{name: "schema never matched", err: fmt.Errorf("answer: %w", &answerschema.Error{Problems: []string{"missing x"}}), code: ExitSchema, reason: "schema", kind: "schema",
			message: (&answerschema.Error{Problems: []string{"missing x"}}).Error()},
		{name: "cancelled without a cause", err: fmt.Errorf("step: %w", context.Canceled), code: ExitError, reason: "cancelled", kind: "cancelled"},
		{name: "404 gets a hint", err: &model.ProviderError{StatusCode: 404, Message: "no route", RetryAfter: -1}, code: ExitError, reason: "error", kind: "provider", status: 404,
			message: (&model.ProviderError{StatusCode: 404, Message: "no route", RetryAfter: -1}).Error() + " (check the base URL, which for an OpenAI-compatible provider usually ends in /v1, and the model name)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := judge(tt.out, tt.err, tt.cause)
			if v.code != tt.code || v.reason != tt.reason {
				t.Fatalf("judge = (%d, %q), want (%d, %q)", v.code, v.reason, tt.code, tt.reason)
			}
			if tt.kind == "" {
				if v.err != nil {
					t.Errorf("error = %+v, want none", v.err)
				}
				return
			}
			if v.err == nil {
				t.Fatalf("no error info, want kind %q", tt.kind)
			}
			if v.err.Kind != tt.kind || v.err.Retryable != tt.retryable || v.err.HTTPStatus != tt.status {
				t.Errorf("error = %+v, want kind %q retryable %v status %d", v.err, tt.kind, tt.retryable, tt.status)
			}
			if v.err.Message == "" || (tt.message != "" && v.err.Message != tt.message) {
				t.Errorf("message %q, want %q", v.err.Message, tt.message)
			}
		})
	}
}

func TestUsageErrorUnwraps(t *testing.T) {
	t.Parallel()
	err := usagef("flow: %w", &skills.Error{Name: "deploy", Err: errors.New("not found")})
	var se *skills.Error
	if !errors.As(err, &se) || se.Name != "deploy" {
		t.Fatalf("errors.As(%v) did not find the skill error", err)
	}
	if err.Error() != `flow: skill "deploy": not found` {
		t.Errorf("message = %q", err.Error())
	}
}

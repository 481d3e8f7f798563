package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/session"

	retry "github.com/avast/retry-go/v4"
)

// stepResult is what one step added to the turn.
type stepResult struct {
	text  string
	calls int
	// cut says the reply stopped at the completion token limit (finish_reason "length").
	cut bool
}

// step makes one model call, retrying transient failures, saves the reply, runs its tool
// calls and saves each result as it comes.
//
// Exactly once across a crash: no call starts before the assistant message that makes it
// is written and synced, and each result is written and synced as soon as its call ends,
// before its tool_result event. So a run killed at any moment leaves every call it
// started in the session, each with its result or without one; a resume answers a call
// without one as interrupted, and nothing runs a second time unless the model asks.
func (a *Agent) step(ctx context.Context, step int, guard *repeatGuard) (stepResult, error) {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	req := model.Request{Messages: a.history, Tools: a.Tools, MaxTokens: a.completionBudget()}
	handler := model.Handler{
		Text:     func(d string) { a.emit(event.Text{Step: step, Delta: d}) },
		Thinking: func(d string) { a.emit(event.Thinking{Step: step, Delta: d}) },
	}
	reply, err := a.callFallingBack(ctx, step, req, handler)
	if err != nil {
		if cerr := context.Cause(parent); cerr != nil {
			// The run was stopped (signal, timeout): say so, not what it broke downstream.
			return stepResult{}, cerr
		}
		return stepResult{}, err
	}
	a.addUsage(reply.Usage)
	a.usageAt = len(a.history)
	cut := reply.FinishReason == "length"
	if cut && len(reply.ToolCalls) > 0 {
		// A final answer cut short is the turn's business (see Turn); here the last call's
		// arguments may be incomplete, and the model will read that in its result.
		a.emit(event.Warning{Message: fmt.Sprintf("step %d: the reply reached the completion token limit and may be cut short", step)})
	}

	batch := newBatch(a, step, guard, reply.ToolCalls)
	msg := model.Message{Role: model.RoleAssistant, Content: reply.Text, Reasoning: reply.Reasoning,
		ReasoningField: reply.ReasoningField, ReasoningDetails: reply.ReasoningDetails}
	for _, r := range batch.calls {
		msg.ToolCalls = append(msg.ToolCalls, r.sent)
	}
	a.appendMsg(msg)
	a.persist(func(s *session.File) error { return s.Usage(a.stats.ContextTokens) })
	if len(batch.calls) > 0 {
		// The calls are on stable storage before the first of them starts.
		a.persist(func(s *session.File) error { return s.Sync() })
	}
	// Every call starts before the usage event, so that every tool_call of a step comes
	// before its usage: sinks take usage as "the reply is complete" (output.Kimi does).
	for _, r := range batch.calls {
		batch.start(ctx, r)
	}
	a.emit(event.Usage{Step: step, InputTokens: reply.Usage.InputTokens, OutputTokens: reply.Usage.OutputTokens,
		CachedTokens: reply.Usage.CachedTokens, ReasoningTokens: reply.Usage.ReasoningTokens, CacheWriteTokens: reply.Usage.CacheWriteTokens,
		ContextTokens: a.stats.ContextTokens})

	batch.wait()
	a.stats.ToolCalls += len(batch.calls)
	// The results are in the session already, in the order the calls ended; the
	// conversation gets them in call order.
	for _, r := range batch.calls {
		a.history = append(a.history, r.message())
	}
	if err := batch.err(); err != nil {
		return stepResult{text: reply.Text}, err
	}
	if err := a.ToolCap.err(); err != nil {
		// A call of this step, or of a subagent it ran, was past the cap: every call is
		// answered and saved, and the run ends here as a spent budget ends it.
		return stepResult{text: reply.Text}, err
	}
	return stepResult{text: reply.Text, calls: len(batch.calls), cut: cut}, nil
}

// callWithRetry makes one model call under the retry policy. No tool call of the reply runs
// before the reply is complete, so a broken stream is retried like any failed call.
func (a *Agent) callWithRetry(ctx context.Context, step int, req model.Request, h model.Handler) (model.Reply, error) {
	policy := a.Retry
	attempts := policy.attempts()
	timer := policy.Timer
	if timer == nil {
		timer = realTimer{}
	}
	reply, err := retry.DoWithData(
		func() (model.Reply, error) {
			return a.Model.Stream(ctx, req, h)
		},
		retry.Context(ctx),
		retry.Attempts(uint(attempts)),
		retry.LastErrorOnly(true),
		// Once the run is stopped (signal, --timeout) nothing is retried, so no retry event
		// announces an attempt that will never be made.
		retry.RetryIf(func(err error) bool { return ctx.Err() == nil && model.Retryable(err) }),
		retry.WithTimer(timer),
		retry.DelayType(func(n uint, err error, _ *retry.Config) time.Duration {
			d := policy.delay(int(n), err)
			if ctx.Err() != nil {
				return 0
			}
			ev := event.Retry{Step: step, Attempt: int(n), MaxAttempts: attempts, DelayMS: d.Milliseconds(), Error: err.Error()}
			var pe *model.ProviderError
			if errors.As(err, &pe) {
				ev.HTTPStatus = pe.StatusCode
			}
			a.emit(ev)
			return d
		}),
	)
	if err != nil {
		if cerr := context.Cause(ctx); cerr != nil {
			return model.Reply{}, cerr
		}
		return model.Reply{}, &AttemptsError{Attempts: attempts, Err: err}
	}
	return reply, nil
}

func (a *Agent) addUsage(u model.TokenUsage) {
	a.stats.Usage.Add(u)
	if n := u.InputTokens + u.OutputTokens; n > 0 {
		a.stats.ContextTokens = n
	}
}

// AttemptsError is a model call that failed after every attempt it was allowed (or at the
// first attempt, when the failure was not worth retrying).
type AttemptsError struct {
	Attempts int
	Err      error
}

func (e *AttemptsError) Error() string {
	if model.Retryable(e.Err) {
		if e.Attempts == 1 {
			return fmt.Sprintf("model call failed after 1 attempt: %v", e.Err)
		}
		return fmt.Sprintf("model call failed after %d attempts: %v", e.Attempts, e.Err)
	}
	return fmt.Sprintf("model call failed: %v", e.Err)
}

func (e *AttemptsError) Unwrap() error { return e.Err }

// batch runs the tool calls of one reply concurrently.
type batch struct {
	agent *Agent
	step  int
	// calls are the reply's calls in the order the model made them.
	calls []*running
	wg    sync.WaitGroup
}

func (b *batch) wait() { b.wg.Wait() }

// err is the first Go error of a tool, in call order; it stops the run.
func (b *batch) err() error {
	for _, r := range b.calls {
		if r.err != nil {
			return r.err
		}
	}
	return nil
}

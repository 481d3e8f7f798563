package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/event"

	retry "github.com/avast/retry-go/v4"

	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/session"
)

// stepResult is what one step added to the turn.
type stepResult struct {
	text  string
	calls int
	// cut says the reply stopped at the completion token limit (finish_reason "length").
	cut bool
}

// step makes one model call, retrying transient failures, runs the tool calls of the reply
// and appends the assistant message and the tool results to the conversation.
func (a *Agent) step(ctx context.Context, step int, guard *repeatGuard) (stepResult, error) {
	// Tool calls start while the reply still streams; the batch collects them in order.
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batch := &batch{agent: a, step: step, guard: guard}
	defer batch.wait()

	req := model.Request{Messages: a.history, Tools: a.Tools, MaxTokens: a.completionBudget()}
	handler := model.Handler{
		Text:     func(d string) { a.emit(event.Text{Step: step, Delta: d}) },
		Thinking: func(d string) { a.emit(event.Thinking{Step: step, Delta: d}) },
		ToolCall: func(c model.CallSpec) { batch.start(ctx, c) },
	}
	reply, err := a.callWithRetry(ctx, step, req, handler, batch.started)
	if err != nil && a.fallBack(parent, step, err, batch.started()) {
		reply, err = a.callWithRetry(ctx, step, req, handler, batch.started)
	}
	if err != nil {
		batch.cancelAll(cancel)
		if cerr := context.Cause(parent); cerr != nil {
			// The run was stopped (signal, timeout): say so, not what it broke downstream.
			return stepResult{}, cerr
		}
		return stepResult{}, err
	}
	// Every call of the reply runs (late ones start here), then results go in call order.
	// They start before the usage event, so that every tool_call of a step comes before
	// its usage: sinks take usage as "the reply is complete" (output.Kimi does).
	for _, c := range reply.ToolCalls {
		batch.start(ctx, c)
	}
	a.addUsage(reply.Usage)
	a.usageAt = len(a.history)
	cut := reply.FinishReason == "length"
	if cut && len(reply.ToolCalls) > 0 {
		// A final answer cut short is the turn's business (see Turn); here the last call's
		// arguments may be incomplete, and the model will read that in its result.
		a.emit(event.Warning{Message: fmt.Sprintf("step %d: the reply reached the completion token limit and may be cut short", step)})
	}
	a.emit(event.Usage{Step: step, InputTokens: reply.Usage.InputTokens, OutputTokens: reply.Usage.OutputTokens,
		CachedTokens: reply.Usage.CachedTokens, ReasoningTokens: reply.Usage.ReasoningTokens, ContextTokens: a.stats.ContextTokens})

	results, err := batch.results(reply.ToolCalls)
	if err != nil {
		return stepResult{text: reply.Text}, err
	}
	a.stats.ToolCalls += len(results)

	msg := model.Message{Role: model.RoleAssistant, Content: reply.Text, Reasoning: reply.Reasoning,
		ReasoningField: reply.ReasoningField, ReasoningDetails: reply.ReasoningDetails}
	for _, r := range results {
		msg.ToolCalls = append(msg.ToolCalls, r.sent)
	}
	a.appendMsg(msg)
	a.persist(func(s *session.File) error { return s.Usage(a.stats.ContextTokens) })
	for _, r := range results {
		a.appendMsg(model.Message{Role: model.RoleTool, Content: r.output, ToolCallID: r.call.ID, Name: r.call.Name})
	}
	return stepResult{text: reply.Text, calls: len(results), cut: cut}, nil
}

// callWithRetry makes one model call under the retry policy. started reports how many tool
// calls of the reply are already running; once any are, a broken stream is not retried.
func (a *Agent) callWithRetry(ctx context.Context, step int, req model.Request, h model.Handler, started func() int) (model.Reply, error) {
	policy := a.Retry
	attempts := policy.attempts()
	timer := policy.Timer
	if timer == nil {
		timer = realTimer{}
	}
	reply, err := retry.DoWithData(
		func() (model.Reply, error) {
			r, err := a.Model.Stream(ctx, req, h)
			var fe *model.FinishError
			if err != nil && started != nil && started() > 0 && !errors.As(err, &fe) {
				// Calls already running cannot be taken back. Keep the reply up to the
				// last complete call and let the model see their results; a retry would
				// run them twice.
				a.emit(event.Warning{Message: fmt.Sprintf("step %d: reply broke off after %d complete tool calls (%v); keeping them", step, started(), err)})
				return r, nil
			}
			return r, err
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
	a.stats.Usage.InputTokens += u.InputTokens
	a.stats.Usage.OutputTokens += u.OutputTokens
	a.stats.Usage.CachedTokens += u.CachedTokens
	a.stats.Usage.ReasoningTokens += u.ReasoningTokens
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
	guard *repeatGuard
	// byKey finds an identical earlier call of the same reply, which runs once.
	byKey map[string]*running
	mu    sync.Mutex
	calls []*running
	ids   map[string]bool
	wg    sync.WaitGroup
}

func (b *batch) started() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.calls)
}

func (b *batch) cancelAll(cancel context.CancelFunc) {
	cancel()
	b.wait()
}

func (b *batch) wait() { b.wg.Wait() }

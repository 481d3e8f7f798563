package run

import (
	"context"
	"errors"
	"fmt"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/agent/answerschema"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/headroom"
	"github.com/kimi-run/kimi-run/kimilogin"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/ralph"
	"github.com/kimi-run/kimi-run/session"
	"github.com/kimi-run/kimi-run/tools/background"
)

// judge maps a turn's outcome and error to the exit code and terminal reason. cause is the
// run context's cancellation cause, if any: a signal, the timeout or a diverging replay
// wins over whatever error the cancellation produced downstream. Both are looked up in
// errorRules, the first row that matches deciding; a run without an error is judged by its
// outcome (outcomeVerdict).
func judge(out outcome, err error, cause error) verdict {
	if cause != nil {
		for _, row := range causeRules {
			if row.match(cause) {
				return row.verdict(cause)
			}
		}
	}
	if err == nil {
		return outcomeVerdict(out)
	}
	for _, row := range errorRules {
		if row.match(err) {
			return row.verdict(err)
		}
	}
	return errorRule{code: ExitError, reason: "error", kind: "error"}.verdict(err)
}

// errorRule is one row of the tables: the errors it matches (anywhere in the chain), the
// exit code, the terminal reason, and the kind and retryability the result reports.
type errorRule struct {
	match     func(error) bool
	code      ExitCode
	codeOf    func(error) ExitCode // when the code depends on the error: its place
	reason    string
	kind      string
	retryable bool
	// message is what the result says; nil: the error's whole chain.
	message func(error) string
}

// verdict is the row's verdict on err. A provider's HTTP status anywhere in the chain is
// reported with it.
func (r errorRule) verdict(err error) verdict {
	info := &event.ErrorInfo{Kind: r.kind, Retryable: r.retryable, Message: err.Error()}
	if r.message != nil {
		info.Message = r.message(err)
	}
	var pe *model.ProviderError
	if errors.As(err, &pe) {
		info.HTTPStatus = pe.StatusCode
	}
	code := r.code
	if r.codeOf != nil {
		code = r.codeOf(err)
	}
	return verdict{code: code, reason: r.reason, err: info}
}

// causeRules judge the cause of a cancelled run.
var causeRules = []errorRule{
	{match: isA[*signalError], codeOf: signalExit, reason: "cancelled", kind: "cancelled", message: ownWords[*signalError]},
	{match: is(errTimeout), code: ExitTimeout, reason: "timeout", kind: "timeout", message: func(error) string { return errTimeout.Error() }},
	{match: isA[*replayError], code: ExitError, reason: "error", kind: "replay", message: ownWords[*replayError]},
}

// errorRules judge the error a run ended with, in order: the first row that matches wins.
var errorRules = []errorRule{
	{match: isA[*replayError], code: ExitError, reason: "error", kind: "replay", message: ownWords[*replayError]},
	{match: isA[*usageError], code: ExitUsage, reason: "error", kind: "usage"},
	{match: isA[*session.UsageError], code: ExitUsage, reason: "error", kind: "usage"},
	{match: isA[*session.BusyError], code: ExitTransient, reason: "busy", kind: "busy", retryable: true},
	{match: isA[*headroom.Error], code: ExitTransient, reason: "transient", kind: "resources", retryable: true},
	{match: isA[*hookBlockedError], code: ExitError, reason: "error", kind: "hook"},
	// Kimi CLI's exit 1 when its print mode stopped waiting for background tasks.
	{match: isA[*background.OverdueError], code: ExitError, reason: "background_timeout", kind: "background", message: ownWords[*background.OverdueError]},
	// A stored Kimi login the OAuth host refused to refresh is over until `kimi login`: an
	// authentication failure, like a key the provider refuses. One that could not be
	// refreshed for now is worth retrying later.
	{match: is(kimilogin.ErrExpired), code: ExitAuth, reason: "auth", kind: "auth"},
	{match: is(kimilogin.ErrRefresh), code: ExitTransient, reason: "transient", kind: "transient", retryable: true},
	{match: provider((*model.ProviderError).Auth), code: ExitAuth, reason: "auth", kind: "auth"},
	// Out of credit: a retry loop in CI would only burn time (exit 5, like a key that is
	// refused, because a person has to act).
	{match: provider((*model.ProviderError).Quota), code: ExitAuth, reason: "quota", kind: "quota"},
	{match: isA[*model.FinishError], code: ExitFiltered, reason: "filtered", kind: "filtered"},
	{match: isA[*model.EndpointError], code: ExitError, reason: "error", kind: "config", message: ownWords[*model.EndpointError]},
	{match: isA[*answerschema.Error], code: ExitSchema, reason: "schema", kind: "schema", message: ownWords[*answerschema.Error]},
	// The budget's own words: the wrapping (flow node, model call) adds nothing.
	{match: isA[*model.BudgetError], code: ExitSpend, reason: "budget", kind: "budget", message: ownWords[*model.BudgetError]},
	{match: transientAfterRetries, code: ExitTransient, reason: "transient", kind: "transient", retryable: true},
	{match: cancelled, code: ExitError, reason: "cancelled", kind: "cancelled"},
	{match: isA[*model.ProviderError], code: ExitError, reason: "error", kind: "provider", message: providerHint},
}

// isA matches an error of type T in the chain.
func isA[T error](err error) bool {
	var t T
	return errors.As(err, &t)
}

// is matches target in the chain.
func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

// signalExit is the exit code of the signal that stopped the run (signalCode).
func signalExit(err error) ExitCode {
	var se *signalError
	errors.As(err, &se)
	return signalCode(se.sig)
}

// provider matches a provider error in the chain for which test holds.
func provider(test func(*model.ProviderError) bool) func(error) bool {
	return func(err error) bool {
		var pe *model.ProviderError
		return errors.As(err, &pe) && test(pe)
	}
}

// transientAfterRetries matches a model call whose retries ran out on a transient failure.
func transientAfterRetries(err error) bool {
	var ae *agent.AttemptsError
	return errors.As(err, &ae) && model.Retryable(ae.Err)
}

func cancelled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// ownWords is the message of the error of type T in the chain, without the context the
// wrapping added.
func ownWords[T error](err error) string {
	var t T
	if errors.As(err, &t) {
		return t.Error()
	}
	return err.Error()
}

// providerHint adds to a 404's message what is usually wrong.
func providerHint(err error) string {
	var pe *model.ProviderError
	if errors.As(err, &pe) && pe.StatusCode == 404 {
		return err.Error() + " (check the base URL, which for an OpenAI-compatible provider usually ends in /v1, and the model name)"
	}
	return err.Error()
}

// stopVerdicts are the turns that ended without an error but short of an answer.
var stopVerdicts = map[event.StopReason]verdict{
	event.StopMaxSteps: {code: ExitMaxSteps, reason: "max_steps", err: &event.ErrorInfo{Kind: "max_steps",
		Message: "the step limit of a turn (--max-steps) was reached before the model finished"}},
	event.StopRepeat: {code: ExitMaxSteps, reason: "repeat", err: &event.ErrorInfo{Kind: "repeat",
		Message: "the loop guard ended the turn: the model kept repeating the same tool call"}},
	event.StopTruncated: {code: ExitMaxSteps, reason: "truncated", err: &event.ErrorInfo{Kind: "truncated",
		Message: fmt.Sprintf("the final answer was still cut off at the completion token limit after %d continuations", agent.MaxContinuations)}},
}

// outcomeVerdict judges a run that ended without an error: a flow's STOP or used-up
// budget, else how its turn stopped.
func outcomeVerdict(out outcome) verdict {
	if out.flow {
		switch out.flowResult.Outcome {
		case ralph.OutcomeStop:
			return verdict{code: ExitOK, reason: "stop"}
		case ralph.OutcomeBudgetExhausted:
			return verdict{code: ExitBudget, reason: "max_iterations", err: &event.ErrorInfo{Kind: "max_iterations",
				Message: fmt.Sprintf("the iteration budget was used up after %d iterations without STOP", out.flowResult.Iterations)}}
		}
	}
	if v, ok := stopVerdicts[out.stop]; ok {
		info := *v.err // a copy: the result's message may be redacted in place
		v.err = &info
		return v
	}
	return verdict{code: ExitOK, reason: "completed"}
}

package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/kimi-run/kimi-run/event"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/kimilogin"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/ralph"
	"github.com/kimi-run/kimi-run/session"
)

// ExitCode is the process's exit status. The README's "Exit codes" holds the table.
type ExitCode int

// The exit codes of kimi-run.
const (
	ExitOK         ExitCode = 0
	ExitError      ExitCode = 1
	ExitUsage      ExitCode = 2
	ExitMaxSteps   ExitCode = 3
	ExitBudget     ExitCode = 4 // the Ralph/flow budget; not the token budget
	ExitAuth       ExitCode = 5
	ExitSpend      ExitCode = 6 // the token or cost budget (--max-tokens-total, --max-cost-usd)
	ExitSchema     ExitCode = 7 // the final answer never matched --json-schema
	ExitFiltered   ExitCode = 8 // the provider ended the reply with a finish_reason other than stop/tool_calls/length
	ExitTransient  ExitCode = 75
	ExitTimeout    ExitCode = 124
	ExitHangup     ExitCode = 129 // SIGHUP: the terminal or the ssh session went away
	ExitInterrupt  ExitCode = 130
	ExitQuit       ExitCode = 131 // SIGQUIT
	ExitTerminated ExitCode = 143
)

// errTimeout is the cause of a run stopped by --timeout.
var errTimeout = errors.New("the wall-clock --timeout was reached")

// signalError is the cause of a run stopped by a signal.
type signalError struct{ sig os.Signal }

func (e *signalError) Error() string { return "interrupted by " + signalName(e.sig) }

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return s.String()
}

// signalCode is the exit code of a run a signal stopped: 128 plus the signal's number, as
// a shell reports it.
func signalCode(s os.Signal) ExitCode {
	switch s {
	case syscall.SIGTERM:
		return ExitTerminated
	case syscall.SIGHUP:
		return ExitHangup
	case syscall.SIGQUIT:
		return ExitQuit
	}
	return ExitInterrupt
}

// verdict is how a run ended, as the result event and the exit code say it.
type verdict struct {
	code   ExitCode
	reason string
	err    *event.ErrorInfo
}

// judge maps a turn's outcome and error to the exit code and terminal reason. cause is the
// run context's cancellation cause, if any: a signal or the timeout wins over whatever error
// the cancellation produced downstream.
func judge(out outcome, err error, cause error) verdict {
	var sig *signalError
	switch {
	case errors.As(cause, &sig):
		return verdict{code: signalCode(sig.sig), reason: "cancelled", err: &event.ErrorInfo{Kind: "cancelled", Message: sig.Error()}}
	case errors.Is(cause, errTimeout):
		return verdict{code: ExitTimeout, reason: "timeout", err: &event.ErrorInfo{Kind: "timeout", Message: errTimeout.Error()}}
	}
	if v, ok := replayVerdict(err, cause); ok {
		return v
	}
	if err == nil && out.flow {
		switch out.flowResult.Outcome {
		case ralph.OutcomeStop:
			return verdict{code: ExitOK, reason: "stop"}
		case ralph.OutcomeBudgetExhausted:
			return verdict{code: ExitBudget, reason: "max_iterations", err: &event.ErrorInfo{Kind: "max_iterations",
				Message: fmt.Sprintf("the iteration budget was used up after %d iterations without STOP", out.flowResult.Iterations)}}
		}
	}
	if err == nil {
		switch out.stop {
		case event.StopMaxSteps:
			return verdict{code: ExitMaxSteps, reason: "max_steps", err: &event.ErrorInfo{Kind: "max_steps", Message: "the step limit of a turn (--max-steps) was reached before the model finished"}}
		case event.StopRepeat:
			return verdict{code: ExitMaxSteps, reason: "repeat", err: &event.ErrorInfo{Kind: "repeat", Message: "the loop guard ended the turn: the model kept repeating the same tool call"}}
		case event.StopTruncated:
			return verdict{code: ExitMaxSteps, reason: "truncated", err: &event.ErrorInfo{Kind: "truncated",
				Message: fmt.Sprintf("the final answer was still cut off at the completion token limit after %d continuations", agent.MaxContinuations)}}
		}
		return verdict{code: ExitOK, reason: "completed"}
	}
	info := &event.ErrorInfo{Kind: "error", Message: err.Error()}
	var ue *usageError
	if errors.As(err, &ue) {
		info.Kind = "usage"
		return verdict{code: ExitUsage, reason: "error", err: info}
	}
	var busy *session.BusyError
	if errors.As(err, &busy) {
		info.Kind = "busy"
		info.Retryable = true
		return verdict{code: ExitTransient, reason: "busy", err: info}
	}
	var hb *hookBlockedError
	if errors.As(err, &hb) {
		info.Kind = "hook"
		return verdict{code: ExitError, reason: "error", err: info}
	}
	// A stored Kimi login the OAuth host refused to refresh is over until `kimi login`:
	// an authentication failure (exit 5), like a key the provider refuses. One that could
	// not be refreshed for now is worth retrying later (75).
	switch {
	case errors.Is(err, kimilogin.ErrExpired):
		info.Kind = "auth"
		return verdict{code: ExitAuth, reason: "auth", err: info}
	case errors.Is(err, kimilogin.ErrRefresh):
		info.Kind, info.Retryable = "transient", true
		return verdict{code: ExitTransient, reason: "transient", err: info}
	}
	var pe *model.ProviderError
	if errors.As(err, &pe) {
		info.HTTPStatus = pe.StatusCode
		if pe.Auth() {
			info.Kind = "auth"
			return verdict{code: ExitAuth, reason: "auth", err: info}
		}
		if pe.Quota() {
			// Out of credit: a retry loop in CI would only burn time (exit 5, like a key
			// that is refused, because a person has to act).
			info.Kind = "quota"
			return verdict{code: ExitAuth, reason: "quota", err: info}
		}
	}
	var fe *model.FinishError
	if errors.As(err, &fe) {
		info.Kind = "filtered"
		return verdict{code: ExitFiltered, reason: "filtered", err: info}
	}
	var ee *model.EndpointError
	if errors.As(err, &ee) {
		info.Kind = "config"
		info.Message = ee.Error()
		return verdict{code: ExitError, reason: "error", err: info}
	}
	var se *SchemaError
	if errors.As(err, &se) {
		return verdict{code: ExitSchema, reason: "schema", err: &event.ErrorInfo{Kind: "schema", Message: se.Error()}}
	}
	var be *model.BudgetError
	if errors.As(err, &be) {
		// The budget's own words: the wrapping (flow node, model call) adds nothing.
		return verdict{code: ExitSpend, reason: "budget", err: &event.ErrorInfo{Kind: "budget", Message: be.Error()}}
	}
	var ae *agent.AttemptsError
	if errors.As(err, &ae) && model.Retryable(ae.Err) {
		info.Kind = "transient"
		info.Retryable = true
		return verdict{code: ExitTransient, reason: "transient", err: info}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		info.Kind = "cancelled"
		return verdict{code: ExitError, reason: "cancelled", err: info}
	}
	if pe != nil {
		info.Kind = "provider"
		if pe.StatusCode == 404 {
			info.Message += " (check the base URL, which usually ends in /v1, and the model name)"
		}
	}
	return verdict{code: ExitError, reason: "error", err: info}
}

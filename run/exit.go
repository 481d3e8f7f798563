package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/ralph"
)

// Exit codes; DESIGN.md and the README hold the table.
const (
	ExitOK         = 0
	ExitError      = 1
	ExitUsage      = 2
	ExitMaxSteps   = 3
	ExitBudget     = 4
	ExitAuth       = 5
	ExitTransient  = 75
	ExitTimeout    = 124
	ExitInterrupt  = 130
	ExitTerminated = 143
)

// errTimeout is the cause of a run stopped by --timeout.
var errTimeout = errors.New("wall-clock timeout reached")

// signalError is the cause of a run stopped by a signal.
type signalError struct{ sig os.Signal }

func (e *signalError) Error() string { return "interrupted by " + signalName(e.sig) }

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// verdict is how a run ended, as the result event and the exit code say it.
type verdict struct {
	code   int
	reason string
	err    *agent.ErrorInfo
}

// judge maps a turn's outcome and error to the exit code and terminal reason. cause is the
// run context's cancellation cause, if any: a signal or the timeout wins over whatever error
// the cancellation produced downstream.
func judge(out outcome, err error, cause error) verdict {
	var sig *signalError
	switch {
	case errors.As(cause, &sig):
		code := ExitInterrupt
		if sig.sig == syscall.SIGTERM {
			code = ExitTerminated
		}
		return verdict{code: code, reason: "cancelled", err: &agent.ErrorInfo{Kind: "cancelled", Message: sig.Error()}}
	case errors.Is(cause, errTimeout):
		return verdict{code: ExitTimeout, reason: "timeout", err: &agent.ErrorInfo{Kind: "timeout", Message: errTimeout.Error()}}
	}
	if err == nil && out.flow {
		switch out.flowResult.Outcome {
		case ralph.OutcomeStop:
			return verdict{code: ExitOK, reason: "stop"}
		case ralph.OutcomeBudgetExhausted:
			return verdict{code: ExitBudget, reason: "max_iterations", err: &agent.ErrorInfo{Kind: "max_iterations",
				Message: fmt.Sprintf("the iteration budget was used up after %d iterations without STOP", out.flowResult.Iterations)}}
		}
	}
	if err == nil {
		switch out.stop {
		case agent.StopMaxSteps:
			return verdict{code: ExitMaxSteps, reason: "max_steps", err: &agent.ErrorInfo{Kind: "max_steps", Message: "the step limit of the turn was reached before the model finished"}}
		case agent.StopRepeat:
			return verdict{code: ExitMaxSteps, reason: "repeat", err: &agent.ErrorInfo{Kind: "repeat", Message: "the model kept repeating the same tool call"}}
		}
		return verdict{code: ExitOK, reason: "completed"}
	}
	info := &agent.ErrorInfo{Kind: "error", Message: err.Error()}
	var ue *usageError
	var se *ralph.SkillError
	if errors.As(err, &ue) || errors.As(err, &se) {
		info.Kind = "usage"
		return verdict{code: ExitUsage, reason: "error", err: info}
	}
	var pe *agent.ProviderError
	if errors.As(err, &pe) {
		info.HTTPStatus = pe.StatusCode
		if pe.Auth() {
			info.Kind = "auth"
			return verdict{code: ExitAuth, reason: "auth", err: info}
		}
	}
	var ae *agent.AttemptsError
	if errors.As(err, &ae) && agent.Retryable(ae.Err) {
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

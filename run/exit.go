package run

import (
	"errors"
	"os"
	"syscall"

	"github.com/kimi-run/kimi-run/event"
)

// ExitCode is the process's exit status. docs/exit-codes.md holds the table.
type ExitCode int

// The exit codes of kimi-run.
const (
	ExitOK         ExitCode = 0
	ExitError      ExitCode = 1
	ExitUsage      ExitCode = 2
	ExitMaxSteps   ExitCode = 3
	ExitBudget     ExitCode = 4 // the Ralph/flow budget; not the token budget
	ExitAuth       ExitCode = 5
	ExitSpend      ExitCode = 6 // the token, cost or tool-call budget (--max-tokens-total, --max-cost-usd, --max-tool-calls)
	ExitSchema     ExitCode = 7 // the final answer never matched --json-schema
	ExitFiltered   ExitCode = 8 // the provider ended the reply with a finish_reason other than stop/tool_calls/length
	ExitDenied     ExitCode = 9 // --fail-on-denial: the run would have exited 0, but a tool call was refused
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

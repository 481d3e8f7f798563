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

// exitCodesHelp is what --help-all and the man page say of the codes (docs/exit-codes.md
// says more); TestEveryExitCodeIsDocumented holds both to the codes above.
const exitCodesHelp = `Exit codes: 0 done, 1 runtime error, 2 usage error, 3 step limit, loop guard or answer
cut at the token limit, 4 Ralph/flow budget used up, 5 authentication refused, 6 token,
cost or tool-call budget used up (--max-tokens-total, --max-cost-usd, --max-tool-calls),
7 final answer never matched --json-schema, 8 the provider stopped the answer or refused
the prompt (content_filter, Anthropic's refusal, Gemini's SAFETY, ...), 9 a tool call was
refused under --fail-on-denial, 75 transient provider failure after retries or session in
use (worth retrying later), 124 --timeout, 130/143 SIGINT/SIGTERM, 129/131 SIGHUP/SIGQUIT.`

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

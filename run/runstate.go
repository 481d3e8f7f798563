package run

import (
	"context"
	"fmt"
	"time"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/filechanges"
	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/internal/scrub"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/output"
	"github.com/kimi-run/kimi-run/session"
	"github.com/kimi-run/kimi-run/telemetry"
	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/background"
)

// runState is one run from start to finish: its settings, its one sink chain, what it
// opened (res, closed once at the end) and what finishing it needs.
type runState struct {
	s       *config.Settings
	version string
	// sink is the run's one sink chain (see newSink): every event goes through it.
	sink    output.Sink
	sio     IO
	started time.Time
	res     resources
	// secrets are scrubbed from stdout, stderr, the answer file and the telemetry.
	secrets *scrub.Set
	tel     *telemetry.Telemetry
	// telWarnings are the telemetry's, reported with the configuration's.
	telWarnings []string
	tape        *tape
	// early holds the warnings found before init in stream-json mode, where the stream
	// must open with init (resolve's, telemetry's, the prompt's).
	early []string
	// stop holds the run to its deadline and writes the result once (see stopper).
	stop *stopper
	// tally counts what the events say the run did, for a result the stopper writes.
	tally *output.Tally
	// cred is the key (or the login's token) the run sends, scrubbed from messages;
	// loginErr a login that could not be refreshed, reported once the stream has opened.
	cred     credentials
	loginErr error

	sessionID string
	session   session.Run
	// hooks, once the session started, fire SessionEnd when the run finishes.
	hooks *runHooks
	// groups holds the process groups of the run's Shell commands; keep leaves them alone.
	groups *tools.ShellGroups
	// tasks are the run's background tasks (Shell's run_in_background).
	tasks *background.Manager
	// launch starts every child of the run (internal/launch).
	launch *launch.Launcher
	guard  *guard
	// changes finds the files the run changed, for result.files_changed; nil until build.
	changes *filechanges.Tracker
	// answerFile is --output-last-message, "" once it has proved unwritable; scrub cleans
	// what is written there. With --json-schema it gets what stdout gets: the matching
	// JSON or nothing.
	answerFile string
	scrub      func(string) string
	// saveErr reports the agent's first failure to write the session.
	saveErr func() error
	// models is the model with its fallback chain, once built.
	models *model.Chain
	// ahead is the connection to the endpoint opened during the set-up (predial).
	ahead *model.Predial
}

// resources are what a run opened, closed once when it ends, the last opened first.
type resources struct{ closers []func() }

// add registers a close to run when the run ends.
func (res *resources) add(close func()) { res.closers = append(res.closers, close) }

// close closes everything, in the reverse order of add.
func (res *resources) close() {
	for i := len(res.closers) - 1; i >= 0; i-- {
		res.closers[i]()
	}
	res.closers = nil
}

// cost is the run's cost in US dollars, nil when a model that answered has no known
// prices: at the run's prices, or each model's at its own once a fallback answered.
func (r *runState) cost(u model.TokenUsage) *float64 {
	if r.models != nil && r.models.Switched() {
		return r.models.Cost()
	}
	return r.s.Budget.CostUSD(u)
}

// warn emits a warning event.
func (r *runState) warn(msg string) { r.emit(event.Warning{Message: msg}) }

func (r *runState) emit(p event.Payload) {
	r.sink.Emit(event.Event{Time: time.Now(), Data: p})
}

// finish emits the result event (always the last one) and returns the exit code.
func (r *runState) finish(ctx context.Context, out outcome, st agent.Stats, err error) ExitCode {
	if !r.s.Flags.KeepBackground {
		// A stopping run must end within two seconds of SIGINT or SIGTERM.
		r.groups.End(time.Second, r.warn)
	}
	tasks := r.tasks.End()
	err = r.endpointMistake(err)
	v := judge(out, err, context.Cause(ctx))
	// What the events said: the calls by tool and the refused calls, subagents' included.
	told := r.tally.Totals()
	v = r.failOnDenial(v, told.Denials)
	res := event.Result{
		Status:          "success",
		TerminalReason:  v.reason,
		ExitCode:        int(v.code),
		FinalText:       out.finalText,
		Error:           v.err,
		Steps:           st.Steps,
		ToolCalls:       st.ToolCalls,
		ToolCallsByTool: told.ToolCallsByTool,
		ToolDenials:     told.ToolDenials,
		Denials:         told.Denials,
		Usage: event.UsageTotals{InputTokens: st.Usage.InputTokens, OutputTokens: st.Usage.OutputTokens, CachedTokens: st.Usage.CachedTokens, ReasoningTokens: st.Usage.ReasoningTokens,
			CacheWriteTokens: st.Usage.CacheWriteTokens,
			CostUSD:          r.cost(st.Usage)},
		DurationMS: time.Since(r.started).Milliseconds(),
		SessionID:  r.sessionID,
		// Which tasks were still running, which were stopped, and by whom.
		BackgroundTasks: tasks,
	}
	if v.code == ExitOK {
		res.StructuredOutput = out.structured
	}
	if r.changes != nil {
		res.FilesChanged, res.FilesUnseen, res.GitSettingsChanged = r.changes.Collect(afterRun(ctx))
		r.warnGitSettings(res.GitSettingsChanged)
	}
	if out.flow {
		res.Iterations = out.flowResult.Iterations
		res.LastChoice = out.flowResult.LastChoice
	}
	if r.answerFile != "" {
		// Every outcome writes it, usage errors included, so that a later step never
		// reads the answer of an earlier run.
		text := out.finalText
		if r.s.Flags.JSONSchema != "" {
			text = string(res.StructuredOutput)
		}
		if err := writeAnswer(r.answerFile, text, r.scrub); err != nil && v.code == ExitOK {
			// The job asked for the answer in a file and it is not there: not a success.
			v = verdict{code: ExitError, reason: "error", err: &event.ErrorInfo{Kind: "output", Message: err.Error()}}
			res.TerminalReason, res.ExitCode, res.Error = v.reason, int(v.code), v.err
		} else if err != nil {
			r.emit(event.Warning{Message: err.Error()})
		}
	}
	if v.code != ExitOK {
		res.Status = "error"
	}
	if res.Error != nil {
		res.Error.Message = r.secrets.String(res.Error.Message)
		if r.s.Output.NDJSON() {
			// stdout stays pure NDJSON; a person reading the CI log still sees why.
			fmt.Fprintf(r.sio.Stderr, "kimi-run: %s\n", res.Error.Message)
		}
	}
	if j := r.session.Journal; j != nil {
		if err := j.Err(); err != nil {
			r.emit(event.Warning{Message: fmt.Sprintf("session %s: %v; a later --rewind-files cannot put back every file this run changed", r.sessionID, err)})
		}
	}
	if r.hooks != nil {
		r.hooks.sessionEnd(ctx, v)
	}
	res.SessionWarning = r.session.Settle(int(v.code), v.reason, r.saveErr, r.warn)
	res.SessionRepairs = r.session.Repairs
	r.stop.result(v.code, func() { r.emit(res) })
	if werr := r.sink.Err(); werr != nil && v.code == ExitOK {
		// The answer did not reach stdout: that is not success.
		fmt.Fprintf(r.sio.Stderr, "kimi-run: writing output: %v\n", werr)
		return ExitError
	}
	return v.code
}

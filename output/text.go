package output

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/kimi-run/kimi-run/event"

	"github.com/mattn/go-colorable"
	"github.com/rs/zerolog"
)

// TextOptions configures the Text sink. run/ decides each of them.
type TextOptions struct {
	// Quiet hides progress. A failed run still gets its one error line on stderr.
	Quiet bool
	// Color colours stderr; set it only when stderr is a terminal and NO_COLOR is unset.
	Color bool
	// Verbose adds debug lines: turns, token usage per step, a note when the model thinks.
	Verbose bool
	// SessionDir is --session-dir as given, for the command that resumes a failed run's
	// session; "" for the default place.
	SessionDir string
	// JSONOnly prints the result's structured output (compact, one line) instead of the
	// final text, and nothing when there is none: under --json-schema stdout holds JSON
	// that matched the schema, or nothing.
	JSONOnly bool
	// MinLevel hides lines below it: "warn" keeps warnings and errors, "error" only
	// errors; "" (or "info") shows progress. Verbose still adds debug lines.
	MinLevel string
	// WaitScale, when set, turns a retry's announced delay into the wait that really
	// happens (a replay at --replay-speed X waits delay/X; 0 waits nothing).
	WaitScale func(ms int64) int64
}

// Text is the plain-text sink: the final answer on stdout, progress on stderr. It is safe
// for concurrent use.
type Text struct {
	stdout  io.Writer
	stderr  io.Writer // the raw stream, for the one-line usage error
	log     zerolog.Logger
	opts    TextOptions
	mu      sync.Mutex
	done    bool               // the top-level result has arrived
	err     error              // first stdout write error
	calls   map[string]callRef // tool calls in flight, by id
	thought map[string]int     // last step noted as thinking, by parent id
	// answered: an answer event (--input-format stream-json) printed the current prompt's
	// final text, so the result does not print it again.
	answered bool
	// said holds the text of the reply streaming now, by parent id, until it is known
	// not to be the final answer (a tool call follows, or another turn begins).
	said map[string]*reply
	// iteration is the last iteration announced, by parent id: the flow's move into its
	// end node repeats it, and is shown as the end rather than as the iteration again.
	iteration map[string]int
}

// callRef remembers an unfinished tool call for its result line and its subagent's events.
type callRef struct {
	name    string
	summary string
	depth   int // nesting of the events the call itself produces (a subagent's)
}

// NewText returns a sink that writes the final answer to stdout and progress to stderr.
func NewText(stdout, stderr io.Writer, opts TextOptions) *Text {
	if f, ok := stderr.(*os.File); ok && opts.Color {
		// Windows consoles need the escape codes translated.
		stderr = colorable.NewColorable(f)
	}
	qw := &quietWriter{w: stderr}
	cw := zerolog.ConsoleWriter{
		Out:          qw,
		NoColor:      !opts.Color,
		FieldsOrder:  fieldsOrder,
		PartsExclude: []string{zerolog.TimestampFieldName},
	}
	level := zerolog.InfoLevel
	switch {
	case opts.MinLevel == "warn":
		level = zerolog.WarnLevel
	case opts.MinLevel == "error":
		level = zerolog.ErrorLevel
	case opts.Verbose:
		level = zerolog.DebugLevel
	}
	return &Text{
		stdout:    stdout,
		stderr:    qw,
		log:       zerolog.New(cw).Level(level),
		opts:      opts,
		calls:     make(map[string]callRef),
		thought:   make(map[string]int),
		said:      make(map[string]*reply),
		iteration: make(map[string]int),
	}
}

// fieldsOrder puts the key=value fields of progress lines in reading order.
var fieldsOrder = []string{
	"reason", "exit_code", "http_status", "steps", "tool_calls", "denied", "files_changed", "iterations", "choice",
	"tokens_in", "tokens_out", "tokens_cached", "cost", "duration",
	"model", "host", "tools", "node", "version", "session",
}

// Emit reports e. Text and thinking deltas never reach stdout: the final answer is only
// known when the result arrives, and a retried step would repeat its text.
func (s *Text) Emit(e event.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return
	}
	data := e.Payload()
	if e.Type() == event.TypeResult && e.Parent == "" {
		s.done = true
		r, _ := data.(event.Result) // a malformed payload still ends the run, as a failure
		s.finish(e, r)
		return
	}
	if e.Parent == "" {
		switch d := data.(type) {
		case event.Answer:
			s.writeAnswer(d.FinalText)
			s.answered = true
			return
		case event.TurnBegin:
			s.answered = false
		}
	}
	if s.opts.Quiet {
		return
	}
	s.progress(e, data)
}

// Err returns the first error met writing the final answer to stdout, or nil. Failures to
// write progress to stderr are ignored: they must not fail a run.
func (s *Text) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// finish writes the summary line to stderr, then the final answer to stdout so that it is
// the last thing a terminal shows.
func (s *Text) finish(e event.Event, r event.Result) {
	failed := r.Status != "success"
	switch {
	case r.Error != nil && r.Error.Kind == "usage" && r.Steps == 0:
		// Nothing ran: the command line is what to fix, and a summary of zero steps and
		// tokens says nothing. The same line as a flag that does not parse.
		fmt.Fprintf(s.stderr, "kimi-run: %s\n", errorLine(r.Error.Message, errorWidth))
	// A session that was not saved whole is shown even with --quiet: the next run resumes less.
	case failed || !s.opts.Quiet || r.SessionWarning != "":
		s.summary(e, r, failed)
	}
	if s.opts.JSONOnly {
		s.writeAnswer(string(r.StructuredOutput))
		return
	}
	if !s.answered {
		s.writeAnswer(r.FinalText)
	}
}

// writeAnswer prints the final text once, ending with exactly one newline. An empty or
// blank answer prints nothing, so `> answer.md` leaves an empty file.
func (s *Text) writeAnswer(text string) {
	text = strings.TrimRight(text, "\r\n")
	if strings.TrimSpace(text) == "" {
		return
	}
	line := text + "\n"
	n, err := io.WriteString(s.stdout, line)
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		s.err = fmt.Errorf("write final answer: %w", err)
	}
}

// summary writes the run's closing line: how it ended and what it cost.
func (s *Text) summary(e event.Event, r event.Result, failed bool) {
	msg := reasonText(r.TerminalReason, failed)
	level := zerolog.InfoLevel
	if failed {
		level = zerolog.ErrorLevel
		if r.Error != nil && r.Error.Message != "" {
			msg = closingMessage(r.TerminalReason, msg, errorLine(r.Error.Message, errorWidth))
		}
	}
	if r.SessionWarning != "" && !failed {
		// Exit 0, yet not the clean kind: say so on the closing line itself.
		level = zerolog.WarnLevel
		msg += ", but the session is incomplete"
	}
	ev := s.log.WithLevel(level).Str("reason", r.TerminalReason)
	if failed {
		ev = ev.Int("exit_code", r.ExitCode)
		if r.Error != nil && r.Error.HTTPStatus != 0 {
			ev = ev.Int("http_status", r.Error.HTTPStatus)
		}
	}
	ev = ev.Int("steps", r.Steps).Int("tool_calls", r.ToolCalls)
	if r.ToolDenials > 0 {
		ev = ev.Int("denied", r.ToolDenials)
	}
	if len(r.FilesChanged) > 0 {
		ev = ev.Int("files_changed", len(r.FilesChanged))
	}
	if r.Iterations > 0 {
		ev = ev.Int("iterations", r.Iterations)
	}
	if r.LastChoice != "" {
		ev = ev.Str("choice", r.LastChoice)
	}
	ev = ev.Int("tokens_in", r.Usage.InputTokens).Int("tokens_out", r.Usage.OutputTokens)
	if r.Usage.CachedTokens > 0 {
		ev = ev.Int("tokens_cached", r.Usage.CachedTokens)
	}
	if r.Usage.CacheWriteTokens > 0 {
		ev = ev.Int("tokens_cache_write", r.Usage.CacheWriteTokens)
	}
	if r.Usage.CostUSD != nil {
		ev = ev.Str("cost", fmt.Sprintf("$%.4f", *r.Usage.CostUSD))
	}
	ev = ev.Str("duration", formatMS(r.DurationMS))
	if r.SessionID != "" {
		ev = ev.Str("session", r.SessionID)
	}
	if failed && r.SessionID != "" {
		resume := "kimi-run --session " + r.SessionID
		if s.opts.SessionDir != "" {
			resume = "kimi-run --session-dir " + shellWord(s.opts.SessionDir) + " --session " + r.SessionID
		}
		ev = ev.Str("resume", resume)
	}
	if r.SessionWarning != "" {
		ev = ev.Str("session_warning", r.SessionWarning)
	}
	ev.Msg(msg)
}

// shellWord is s as one word of a shell command line: single-quoted when it holds anything
// a shell would read otherwise.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// closingMessage joins the words for a failed run's reason and its error message. Where the
// message already says what the reason says (a limit was reached), the reason's words are
// left out rather than said twice.
func closingMessage(reason, words, message string) string {
	switch reason {
	case "max_steps", "repeat", "max_iterations", "timeout", "truncated":
		return "stopped: " + message
	case "cancelled":
		return "cancelled: " + message
	case "denied":
		return "failed: " + message
	}
	return words + ": " + message
}

// reasonText says in words how a run ended.
func reasonText(reason string, failed bool) string {
	switch reason {
	case "completed":
		return "done"
	case "stop":
		return "done: the model said STOP"
	case "max_steps":
		return "stopped: the step limit of a turn was reached"
	case "repeat":
		return "stopped: the model kept repeating the same tool call"
	case "truncated":
		return "stopped: the answer was cut off at the token limit"
	case "max_iterations":
		return "stopped: the iteration budget ran out before STOP"
	case "timeout":
		return "stopped: the time limit was reached"
	case "cancelled":
		return "cancelled"
	case "auth":
		return "failed: the provider refused the credentials"
	case "transient":
		return "failed: the provider kept failing after all retries"
	case "busy":
		return "not started: the session is in use by another run"
	case "budget":
		return "stopped: the token, cost or tool-call budget ran out"
	case "schema":
		return "failed: the final answer does not match the JSON schema"
	case "denied":
		return "failed: a tool call was refused (--fail-on-denial)"
	}
	if failed {
		return "failed"
	}
	return "done"
}

// quietWriter passes progress to stderr until the first error, then drops it silently:
// a broken stderr must neither fail the run nor make zerolog complain on stderr itself.
type quietWriter struct {
	w      io.Writer
	failed bool
}

func (q *quietWriter) Write(p []byte) (int, error) {
	if !q.failed {
		if _, err := q.w.Write(p); err != nil {
			q.failed = true
		}
	}
	return len(p), nil
}

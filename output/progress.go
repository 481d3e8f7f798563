package output

import (
	"fmt"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/tools"

	"github.com/rs/zerolog"
)

// nestMark prefixes each line of a subagent's events, once per level of nesting.
const nestMark = "  | "

// progress writes the stderr lines for one event other than the final result.
func (s *Text) progress(e event.Event, data event.Payload) {
	depth := 0
	if e.Parent != "" {
		depth = 1
		if c, ok := s.calls[e.Parent]; ok {
			depth = c.depth
		}
	}
	l := eventLines{s: s, e: e, pre: strings.Repeat(nestMark, depth)}

	switch d := data.(type) {
	case event.Text:
		// Deltas stay off stderr until the reply is known not to be the final answer,
		// which is printed once, on stdout, at the end.
		s.hear(e.Parent, d.Step, d.Delta)
	case event.Thinking:
		if s.opts.Verbose && s.thought[e.Parent] != d.Step {
			s.thought[e.Parent] = d.Step
			l.debug("  thinking")
		}
	case event.Init:
		l.init(d)
	case event.TurnBegin:
		l.say() // the previous turn's answer (a Ralph iteration's), not the run's
		ev := l.at(zerolog.DebugLevel)
		if d.Node != "" {
			ev = ev.Str("node", d.Node)
		}
		l.msg(ev, fmt.Sprintf("turn %d", d.Turn))
	case event.TurnEnd:
		l.turnEnd(d)
	case event.StepBegin:
		l.info(fmt.Sprintf("step %d", d.Step))
	case event.SessionRewind:
		l.sessionRewind(d)
	case event.ToolCall:
		l.say()
		sum := argsSummary(d.Name, d.Arguments)
		s.calls[d.ID] = callRef{name: d.Name, summary: sum, depth: depth + 1}
		l.info("  " + joinNonEmpty(d.Name, sum))
	case event.ToolResult:
		s.toolResult(e, d, l.pre)
	case event.ToolProgress:
		l.info("  " + toolProgressLine(d, s.calls[d.ID]))
	case event.TaskWait:
		l.info(taskWaitLine(d))
	case event.Retry:
		s.spoken(e.Parent) // the step's text starts again
		l.warn(s.retryLine(d))
	case event.Usage:
		l.debug(fmt.Sprintf("  tokens in=%d out=%d cached=%d context=%d",
			d.InputTokens, d.OutputTokens, d.CachedTokens, d.ContextTokens))
	case event.CompactionBegin:
		l.info(fmt.Sprintf("compacting context (%d tokens)", d.TokensBefore))
	case event.CompactionEnd:
		l.compactionEnd(d)
	case event.Iteration:
		l.iteration(d)
	case event.Todo:
		l.todo(d)
	case event.TaskStarted:
		l.info(fmt.Sprintf("  background task %s started: %s", d.TaskID, errorLine(d.Description, errorWidth)))
	case event.TaskOutput:
		l.taskOutput(d)
	case event.TaskEnded:
		line := fmt.Sprintf("  background task %s %s", d.TaskID, taskEnding(d))
		if d.Status == "completed" {
			l.info(line)
		} else {
			l.warn(line)
		}
	case event.Warning:
		l.warn(errorLine(d.Message, errorWidth))
	case event.Hook:
		l.hook(d)
	case event.ToolDenied:
		rule := d.Rule
		if rule == "" {
			rule = "no allow rule matched"
		}
		l.warn(fmt.Sprintf("  %s refused: %s", d.Name, rule))
	case event.Result:
		// A subagent's result: its parent's tool result line reports the outcome.
		s.spoken(e.Parent)
		l.debug(fmt.Sprintf("subagent %s after %d steps", d.Status, d.Steps))
	default:
		l.debug("event " + string(e.Type()))
	}
}

// eventLines writes the stderr lines of one event, each at the event's time and indented by
// its nesting (pre).
type eventLines struct {
	s   *Text
	e   event.Event
	pre string
}

// at starts a log entry of the given level (nil, a no-op, when it is filtered out).
func (l eventLines) at(level zerolog.Level) *zerolog.Event { return l.s.log.WithLevel(level) }

// msg writes an entry begun with at, indented.
func (l eventLines) msg(ev *zerolog.Event, msg string) { ev.Msg(l.pre + msg) }

func (l eventLines) info(msg string)  { l.msg(l.at(zerolog.InfoLevel), msg) }
func (l eventLines) warn(msg string)  { l.msg(l.at(zerolog.WarnLevel), msg) }
func (l eventLines) debug(msg string) { l.msg(l.at(zerolog.DebugLevel), msg) }

// say shows the reply held for this parent, once it is known not to be the answer.
func (l eventLines) say() {
	if text := l.s.spoken(l.e.Parent); text != "" {
		l.info("  « " + text)
	}
}

// init is the run's first line: model, host, tools, and version and session when known.
func (l eventLines) init(d event.Init) {
	ev := l.at(zerolog.InfoLevel).Str("model", d.Model).Str("host", d.BaseURLHost).
		Int("tools", len(d.Tools))
	if d.Version != "" {
		ev = ev.Str("version", d.Version)
	}
	if d.SessionID != "" {
		ev = ev.Str("session", d.SessionID)
	}
	l.msg(ev, "start")
}

// turnEnd warns of a turn that stopped for another reason than completion.
func (l eventLines) turnEnd(d event.TurnEnd) {
	if d.StopReason != "" && d.StopReason != string(event.StopCompleted) {
		l.msg(l.at(zerolog.WarnLevel).Int("steps", d.Steps), fmt.Sprintf("turn %d ended: %s", d.Turn, d.StopReason))
		return
	}
	l.msg(l.at(zerolog.DebugLevel).Int("steps", d.Steps), fmt.Sprintf("turn %d done", d.Turn))
}

// sessionRewind reports a --rewind: the checkpoint, then what became of each file.
func (l eventLines) sessionRewind(d event.SessionRewind) {
	l.info(fmt.Sprintf("rewound to checkpoint %d; the conversation as it was is kept in %s", d.Checkpoint, d.Backup))
	for _, f := range d.Files {
		switch {
		case f.Action == "not_restored":
			l.warn(fmt.Sprintf("  %s not restored: %s", f.Path, errorLine(f.Reason, errorWidth)))
		case f.ChangedOutside:
			l.warn(fmt.Sprintf("  %s %s, undoing a change made outside the file tools (kept in %s)", f.Path, f.Action, f.Backup))
		default:
			l.info(fmt.Sprintf("  %s %s", f.Path, f.Action))
		}
	}
}

// retryLine says which retry comes, when, and after what failure.
func (s *Text) retryLine(d event.Retry) string {
	// Retries counted as --max-retries counts them: the event's attempt is the attempt
	// that failed, so this is retry number attempt of max_attempts-1.
	msg := fmt.Sprintf("retry %d/%d", d.Attempt, max(d.MaxAttempts-1, d.Attempt))
	if wait := s.wait(d.DelayMS); wait > 0 {
		msg += " in " + formatMS(wait)
	}
	if d.HTTPStatus != 0 && !strings.Contains(d.Error, fmt.Sprintf("HTTP %d", d.HTTPStatus)) {
		msg += fmt.Sprintf(": HTTP %d", d.HTTPStatus)
	}
	if d.Error != "" {
		msg += ": " + errorLine(d.Error, errorWidth)
	}
	return msg
}

// iteration announces a Ralph iteration, or the flow's end when the same iteration comes
// again with its move into the end node.
func (l eventLines) iteration(d event.Iteration) {
	s := l.s
	if s.iteration[l.e.Parent] == d.Iteration && d.Iteration > 0 {
		// The move into the flow's end node: the iteration itself was announced, and
		// the reply held is the answer, which stdout shows.
		s.spoken(l.e.Parent)
		ev := l.at(zerolog.InfoLevel)
		if d.Choice != "" {
			ev = ev.Str("choice", d.Choice)
		}
		l.msg(ev, "ended")
		return
	}
	l.say() // the previous iteration's answer
	s.iteration[l.e.Parent] = d.Iteration
	msg := fmt.Sprintf("iteration %d", d.Iteration)
	if d.Max > 0 {
		msg += fmt.Sprintf("/%d", d.Max)
	}
	ev := l.at(zerolog.InfoLevel)
	if d.Node != "" {
		ev = ev.Str("node", d.Node)
	}
	if d.Choice != "" {
		ev = ev.Str("choice", d.Choice)
	}
	l.msg(ev, msg)
}

// todo shows the todo list: how many items are done, then each with its mark.
func (l eventLines) todo(d event.Todo) {
	done := 0
	for _, it := range d.Items {
		if it.Status == "done" {
			done++
		}
	}
	l.info(fmt.Sprintf("todo %d/%d done", done, len(d.Items)))
	for _, it := range d.Items {
		l.info("  " + tools.TodoMark(it.Status) + " " + oneLine(it.Title, callWidth))
	}
}

// taskOutput shows what a background task printed: its own business, so at debug level, a
// line at a time.
func (l eventLines) taskOutput(d event.TaskOutput) {
	for _, line := range strings.Split(strings.TrimRight(d.Text, "\n"), "\n") {
		if d.Truncated {
			line = "(the rest is only in its output file)"
		}
		l.debug(fmt.Sprintf("  %s | %s", d.TaskID, errorLine(line, errorWidth)))
	}
}

// taskEnding says how a background task ended, e.g. "completed after 3s (exit 0)".
func taskEnding(d event.TaskEnded) string {
	msg := d.TerminalReason
	if d.TerminalReason == "timed_out" {
		msg = "timed out"
	}
	msg += " after " + wholeSeconds(d.DurationMS)
	if d.ExitCode != nil {
		msg += fmt.Sprintf(" (exit %d)", *d.ExitCode)
	}
	if d.Reason != "" && d.Status != "completed" {
		msg += ": " + errorLine(d.Reason, errorWidth)
	}
	return msg
}

// toolProgressLine is the heartbeat of a running call: what runs, for how long, and when it
// last printed, e.g. "Shell go test ./... still running after 45s: 12.3 kB of output, the
// last 30s ago".
func toolProgressLine(d event.ToolProgress, c callRef) string {
	msg := joinNonEmpty(d.Name, truncate(c.summary, resultWidth)) + " still running after " + wholeSeconds(d.ElapsedMS)
	switch {
	case d.OutputBytes == 0:
		return msg + ": no output yet"
	case d.SinceOutputMS < 1000:
		return msg + ": " + formatBytes(d.OutputBytes) + " of output"
	}
	return msg + ": " + formatBytes(d.OutputBytes) + " of output, the last " + wholeSeconds(d.SinceOutputMS) + " ago"
}

// taskWaitLine is the heartbeat of the wait for background tasks, e.g. "waiting for 1
// background task after 30s (stopped at 10m0s): bash-1a2b3c4d dev server (running 2m5s)".
func taskWaitLine(d event.TaskWait) string {
	names := make([]string, len(d.Tasks))
	for i, t := range d.Tasks {
		names[i] = joinNonEmpty(t.TaskID, t.Description) + " (running " + wholeSeconds(t.ElapsedMS) + ")"
	}
	noun := "tasks"
	if len(d.Tasks) == 1 {
		noun = "task"
	}
	return fmt.Sprintf("waiting for %d background %s after %s (stopped at %s): %s",
		len(d.Tasks), noun, wholeSeconds(d.WaitedMS), wholeSeconds(d.CeilingMS), strings.Join(names, ", "))
}

// wholeSeconds writes ms rounded to the second (a heartbeat is not a measurement): 15s,
// 1m1s.
func wholeSeconds(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).Round(time.Second).String()
}

// formatBytes writes n bytes in the unit that reads best: 812 B, 12.3 kB, 4.5 MB.
func formatBytes(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1e9)
}

// wait is the delay a retry really waits, in ms.
func (s *Text) wait(ms int64) int64 {
	if s.opts.WaitScale != nil {
		return s.opts.WaitScale(ms)
	}
	return ms
}

// outputIndent sets a tool's output off under its result line.
const outputIndent = "      "

// toolResult writes the outcome of a tool call: ok, or error with the first line of its
// output, then lines of the output itself (see excerpt).
func (s *Text) toolResult(e event.Event, d event.ToolResult, pre string) {
	c, ok := s.calls[d.ID]
	delete(s.calls, d.ID)
	name := d.Name
	if name == "" && ok {
		name = c.name
	}
	head := "  " + joinNonEmpty(name, truncate(c.summary, resultWidth)) + " -> "
	dur := formatMS(d.DurationMS)
	if !d.IsError {
		s.log.Info().Msg(pre + head + "ok " + dur)
		s.excerpt(pre, outputLines(d.Output), false)
		return
	}
	// "ERROR: " marks the result for the model; this line already says error.
	lines := outputLines(strings.TrimPrefix(strings.TrimLeft(d.Output, "\n"), "ERROR: "))
	msg := head + "error " + dur
	if len(lines) > 0 {
		msg += ": " + oneLine(lines[0], outputWidth)
		lines = lines[1:]
	}
	// A failed tool call is reported to the model, which carries on: a warning, not an error.
	s.log.Warn().Msg(pre + msg)
	s.excerpt(pre, lines, true)
}

// excerpt writes lines of a tool's output under its result line, indented: the first
// headLines at debug level (--log-level debug), and for a failed call the last
// failTailLines as warnings, since that is where a compiler or a test says what broke.
func (s *Text) excerpt(pre string, lines []string, failed bool) {
	n := len(lines)
	tail := 0
	if failed {
		tail = min(n, failTailLines)
	}
	head := 0
	if s.opts.Verbose {
		head = min(n-tail, headLines)
	}
	line := func(level zerolog.Level, text string) {
		s.log.WithLevel(level).Msg(pre + outputIndent + truncate(text, outputWidth))
	}
	for _, l := range lines[:head] {
		line(zerolog.DebugLevel, l)
	}
	if left := n - head - tail; left > 0 && (failed || s.opts.Verbose) {
		level := zerolog.DebugLevel
		if failed {
			level = zerolog.WarnLevel
		}
		line(level, fmt.Sprintf("[... %d more lines]", left))
	}
	for _, l := range lines[n-tail:] {
		line(zerolog.WarnLevel, l)
	}
}

// hook reports one run of a user's hook: allowed, blocked (with why) or timed out.
func (l eventLines) hook(d event.Hook) {
	head := "  hook " + joinNonEmpty(d.Event, truncate(d.Command, resultWidth)) + " -> "
	dur := formatMS(d.DurationMS)
	switch {
	case d.Blocked:
		msg := head + "blocked " + dur
		if first := errorLine(d.Reason, outputWidth); first != "" {
			msg += ": " + first
		}
		l.warn(msg)
	case d.TimedOut:
		l.info(head + "timed out " + dur)
	default:
		l.info(head + fmt.Sprintf("exit %d %s", d.ExitCode, dur))
	}
}

// compactionEnd reports how much a compaction saved, or that it failed.
func (l eventLines) compactionEnd(d event.CompactionEnd) {
	if d.Error != "" {
		l.warn("compaction failed: " + errorLine(d.Error, errorWidth))
		return
	}
	msg := fmt.Sprintf("compacted context: %d -> %d tokens", d.TokensBefore, d.TokensAfter)
	if d.Fallback {
		msg += " (fallback)"
	}
	l.info(msg)
}

// joinNonEmpty joins a tool name and its summary with two spaces, dropping an empty summary.
func joinNonEmpty(name, summary string) string {
	if summary == "" {
		return name
	}
	return name + "  " + summary
}

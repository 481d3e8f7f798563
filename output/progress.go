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
	pre := strings.Repeat(nestMark, depth)
	info := func(msg string) { s.entry(zerolog.InfoLevel, e.Time).Msg(pre + msg) }
	warn := func(msg string) { s.entry(zerolog.WarnLevel, e.Time).Msg(pre + msg) }
	debug := func(msg string) { s.entry(zerolog.DebugLevel, e.Time).Msg(pre + msg) }
	// say shows the reply held for this parent, once it is known not to be the answer.
	say := func() {
		if text := s.spoken(e.Parent); text != "" {
			info("  « " + text)
		}
	}

	switch d := data.(type) {
	case event.Text:
		// Deltas stay off stderr until the reply is known not to be the final answer,
		// which is printed once, on stdout, at the end.
		s.hear(e.Parent, d.Step, d.Delta)
	case event.Thinking:
		if s.opts.Verbose && s.thought[e.Parent] != d.Step {
			s.thought[e.Parent] = d.Step
			debug("  thinking")
		}
	case event.Init:
		ev := s.entry(zerolog.InfoLevel, e.Time).Str("model", d.Model).Str("host", d.BaseURLHost).
			Int("tools", len(d.Tools))
		if d.Version != "" {
			ev = ev.Str("version", d.Version)
		}
		if d.SessionID != "" {
			ev = ev.Str("session", d.SessionID)
		}
		ev.Msg(pre + "start")
	case event.TurnBegin:
		say() // the previous turn's answer (a Ralph iteration's), not the run's
		ev := s.entry(zerolog.DebugLevel, e.Time)
		if d.Node != "" {
			ev = ev.Str("node", d.Node)
		}
		ev.Msg(pre + fmt.Sprintf("turn %d", d.Turn))
	case event.TurnEnd:
		if d.StopReason != "" && d.StopReason != string(event.StopCompleted) {
			s.entry(zerolog.WarnLevel, e.Time).Int("steps", d.Steps).
				Msg(pre + fmt.Sprintf("turn %d ended: %s", d.Turn, d.StopReason))
		} else {
			s.entry(zerolog.DebugLevel, e.Time).Int("steps", d.Steps).Msg(pre + fmt.Sprintf("turn %d done", d.Turn))
		}
	case event.StepBegin:
		info(fmt.Sprintf("step %d", d.Step))
	case event.SessionRewind:
		info(fmt.Sprintf("rewound to checkpoint %d; the conversation as it was is kept in %s", d.Checkpoint, d.Backup))
		for _, f := range d.Files {
			switch {
			case f.Action == "not_restored":
				warn(fmt.Sprintf("  %s not restored: %s", f.Path, errorLine(f.Reason, errorWidth)))
			case f.ChangedOutside:
				warn(fmt.Sprintf("  %s %s, undoing a change made outside the file tools (kept in %s)", f.Path, f.Action, f.Backup))
			default:
				info(fmt.Sprintf("  %s %s", f.Path, f.Action))
			}
		}
	case event.ToolCall:
		say()
		sum := argsSummary(d.Name, d.Arguments)
		s.calls[d.ID] = callRef{name: d.Name, summary: sum, depth: depth + 1}
		info("  " + joinNonEmpty(d.Name, sum))
	case event.ToolResult:
		s.toolResult(e, d, pre)
	case event.ToolProgress:
		info("  " + toolProgressLine(d, s.calls[d.ID]))
	case event.Retry:
		s.spoken(e.Parent) // the step's text starts again
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
		warn(msg)
	case event.Usage:
		debug(fmt.Sprintf("  tokens in=%d out=%d cached=%d context=%d",
			d.InputTokens, d.OutputTokens, d.CachedTokens, d.ContextTokens))
	case event.CompactionBegin:
		info(fmt.Sprintf("compacting context (%d tokens)", d.TokensBefore))
	case event.CompactionEnd:
		s.compactionEnd(d, info, warn)
	case event.Iteration:
		if s.iteration[e.Parent] == d.Iteration && d.Iteration > 0 {
			// The move into the flow's end node: the iteration itself was announced, and
			// the reply held is the answer, which stdout shows.
			s.spoken(e.Parent)
			ev := s.entry(zerolog.InfoLevel, e.Time)
			if d.Choice != "" {
				ev = ev.Str("choice", d.Choice)
			}
			ev.Msg(pre + "ended")
			return
		}
		say() // the previous iteration's answer
		s.iteration[e.Parent] = d.Iteration
		msg := fmt.Sprintf("iteration %d", d.Iteration)
		if d.Max > 0 {
			msg += fmt.Sprintf("/%d", d.Max)
		}
		ev := s.entry(zerolog.InfoLevel, e.Time)
		if d.Node != "" {
			ev = ev.Str("node", d.Node)
		}
		if d.Choice != "" {
			ev = ev.Str("choice", d.Choice)
		}
		ev.Msg(pre + msg)
	case event.Todo:
		done := 0
		for _, it := range d.Items {
			if it.Status == "done" {
				done++
			}
		}
		info(fmt.Sprintf("todo %d/%d done", done, len(d.Items)))
		for _, it := range d.Items {
			info("  " + tools.TodoMark(it.Status) + " " + oneLine(it.Title, callWidth))
		}
	case event.TaskStarted:
		info(fmt.Sprintf("  background task %s started: %s", d.TaskID, errorLine(d.Description, errorWidth)))
	case event.TaskOutput:
		// What a task prints is its own business; debug shows it, a line at a time.
		for _, l := range strings.Split(strings.TrimRight(d.Text, "\n"), "\n") {
			if d.Truncated {
				l = "(the rest is only in its output file)"
			}
			debug(fmt.Sprintf("  %s | %s", d.TaskID, errorLine(l, errorWidth)))
		}
	case event.TaskEnded:
		line := fmt.Sprintf("  background task %s %s", d.TaskID, taskEnding(d))
		if d.Status == "completed" {
			info(line)
		} else {
			warn(line)
		}
	case event.Warning:
		warn(errorLine(d.Message, errorWidth))
	case event.Hook:
		s.hook(d, info, warn)
	case event.ToolDenied:
		rule := d.Rule
		if rule == "" {
			rule = "no allow rule matched"
		}
		warn(fmt.Sprintf("  %s refused: %s", d.Name, rule))
	case event.Result:
		// A subagent's result: its parent's tool result line reports the outcome.
		s.spoken(e.Parent)
		debug(fmt.Sprintf("subagent %s after %d steps", d.Status, d.Steps))
	default:
		debug("event " + string(e.Type()))
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
		s.entry(zerolog.InfoLevel, e.Time).Msg(pre + head + "ok " + dur)
		s.excerpt(e.Time, pre, outputLines(d.Output), false)
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
	s.entry(zerolog.WarnLevel, e.Time).Msg(pre + msg)
	s.excerpt(e.Time, pre, lines, true)
}

// excerpt writes lines of a tool's output under its result line, indented: the first
// headLines at debug level (--log-level debug), and for a failed call the last
// failTailLines as warnings, since that is where a compiler or a test says what broke.
func (s *Text) excerpt(t time.Time, pre string, lines []string, failed bool) {
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
		s.entry(level, t).Msg(pre + outputIndent + truncate(text, outputWidth))
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
func (s *Text) hook(d event.Hook, info, warn func(string)) {
	head := "  hook " + joinNonEmpty(d.Event, truncate(d.Command, resultWidth)) + " -> "
	dur := formatMS(d.DurationMS)
	switch {
	case d.Blocked:
		msg := head + "blocked " + dur
		if first := errorLine(d.Reason, outputWidth); first != "" {
			msg += ": " + first
		}
		warn(msg)
	case d.TimedOut:
		info(head + "timed out " + dur)
	default:
		info(head + fmt.Sprintf("exit %d %s", d.ExitCode, dur))
	}
}

// compactionEnd reports how much a compaction saved, or that it failed.
func (s *Text) compactionEnd(d event.CompactionEnd, info, warn func(string)) {
	if d.Error != "" {
		warn("compaction failed: " + errorLine(d.Error, errorWidth))
		return
	}
	msg := fmt.Sprintf("compacted context: %d -> %d tokens", d.TokensBefore, d.TokensAfter)
	if d.Fallback {
		msg += " (fallback)"
	}
	info(msg)
}

// joinNonEmpty joins a tool name and its summary with two spaces, dropping an empty summary.
func joinNonEmpty(name, summary string) string {
	if summary == "" {
		return name
	}
	return name + "  " + summary
}

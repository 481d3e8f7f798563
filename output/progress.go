package output

import (
	"fmt"
	"strings"

	"github.com/kimi-run/kimi-run/event"

	"github.com/rs/zerolog"
)

// nestMark prefixes each line of a subagent's events, once per level of nesting.
const nestMark = "  | "

// progress writes the stderr lines for one event other than the final result.
func (s *Text) progress(e event.Event, data any) {
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

	switch d := data.(type) {
	case event.Text:
		// Deltas stay off stderr: the answer is printed once, on stdout, at the end.
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
	case event.ToolCall:
		sum := argsSummary(d.Name, d.Arguments)
		s.calls[d.ID] = callRef{name: d.Name, summary: sum, depth: depth + 1}
		info("  " + joinNonEmpty(d.Name, sum))
	case event.ToolResult:
		s.toolResult(e, d, pre)
	case event.Retry:
		msg := fmt.Sprintf("retry %d/%d in %s", d.Attempt, d.MaxAttempts, formatMS(d.DelayMS))
		if d.HTTPStatus != 0 && !strings.Contains(d.Error, fmt.Sprintf("HTTP %d", d.HTTPStatus)) {
			msg += fmt.Sprintf(": HTTP %d", d.HTTPStatus)
		}
		if d.Error != "" {
			msg += ": " + oneLine(d.Error, errorWidth)
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
			info("  " + todoMark(it.Status) + " " + oneLine(it.Title, callWidth))
		}
	case event.Warning:
		warn(oneLine(d.Message, errorWidth))
	case event.ToolDenied:
		rule := d.Rule
		if rule == "" {
			rule = "no allow rule matched"
		}
		warn(fmt.Sprintf("  %s refused: %s", d.Name, rule))
	case event.Result:
		// A subagent's result: its parent's tool result line reports the outcome.
		debug(fmt.Sprintf("subagent %s after %d steps", d.Status, d.Steps))
	default:
		debug("event " + string(e.Type))
	}
}

// toolResult writes the outcome of a tool call: ok, or error with the first output line.
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
		return
	}
	msg := head + "error " + dur
	if first := firstLine(d.Output, outputWidth); first != "" {
		msg += ": " + first
	}
	// A failed tool call is reported to the model, which carries on: a warning, not an error.
	s.entry(zerolog.WarnLevel, e.Time).Msg(pre + msg)
}

// compactionEnd reports how much a compaction saved, or that it failed.
func (s *Text) compactionEnd(d event.CompactionEnd, info, warn func(string)) {
	if d.Error != "" {
		warn("compaction failed: " + oneLine(d.Error, errorWidth))
		return
	}
	msg := fmt.Sprintf("compacted context: %d -> %d tokens", d.TokensBefore, d.TokensAfter)
	if d.Fallback {
		msg += " (fallback)"
	}
	info(msg)
}

// todoMark is the status marker of a todo item.
func todoMark(status string) string {
	switch status {
	case "done":
		return "[x]"
	case "in_progress":
		return "[>]"
	case "pending":
		return "[ ]"
	}
	return "[?]"
}

// joinNonEmpty joins a tool name and its summary with two spaces, dropping an empty summary.
func joinNonEmpty(name, summary string) string {
	if summary == "" {
		return name
	}
	return name + "  " + summary
}

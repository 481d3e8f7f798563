package output

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Widths of the one-line summaries on stderr, in runes.
const (
	callWidth   = 100 // a tool call's argument summary
	resultWidth = 40  // the same summary repeated on the result line
	outputWidth = 160 // a line of a tool's output
	// errorWidth bounds a run's error message. It is wide enough for a wrapped provider
	// error (the agent caps the provider's message at 500 bytes) so that the cause, which
	// comes last, is not cut; longer ones lose their middle, never their end.
	errorWidth = 1000
)

// Lines of a tool's output shown under its result line on stderr.
const (
	failTailLines = 8 // the end of a failed call's output, where the cause usually is
	headLines     = 5 // the start of every call's output, with --log-level debug
)

// summaryKeys are the argument names that best say what a call does, most telling first.
// Tools not listed in argsSummary fall back to the first of these that holds a string.
var summaryKeys = []string{
	"command", "path", "file_path", "url", "query", "pattern", "description", "message", "thought",
}

// argsSummary renders a tool call's arguments as one short line, e.g. `go test ./...` for
// Shell or `TODO in internal/` for Grep.
func argsSummary(name string, raw json.RawMessage) string {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		// Arguments the model sent that were not an object are kept as a string.
		return oneLine(s, callWidth)
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return oneLine(string(raw), callWidth)
	}
	str := func(key string) string {
		var v string
		if json.Unmarshal(args[key], &v) != nil {
			return ""
		}
		return v
	}
	switch name {
	case "SetTodoList":
		var todos []json.RawMessage
		if raw := args["todos"]; len(raw) == 0 || string(raw) == "null" {
			return "read back" // no todos: the plan is shown, not changed
		} else if json.Unmarshal(raw, &todos) == nil {
			return fmt.Sprintf("%d items", len(todos))
		}
	case "Grep":
		if p := str("path"); p != "" && str("pattern") != "" {
			return oneLine(str("pattern")+" in "+p, callWidth)
		}
	case "Glob":
		if d := str("directory"); d != "" && str("pattern") != "" {
			return oneLine(str("pattern")+" in "+d, callWidth)
		}
	}
	for _, k := range summaryKeys {
		if v := str(k); v != "" {
			return oneLine(v, callWidth)
		}
	}
	return oneLine(string(raw), callWidth)
}

// oneLine flattens s to a single line (runs of whitespace, newlines included, become one
// space) and cuts it to at most width runes, marking a cut with "...".
func oneLine(s string, width int) string {
	s = strings.Join(strings.Fields(s), " ")
	return truncate(s, width)
}

// errorLine flattens an error message to one line and, if it is longer than width runes,
// cuts its middle: the start says what failed, the end says why.
func errorLine(s string, width int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	const mark = " [...] "
	head := width / 3
	tail := width - head - len(mark)
	return string(r[:head]) + mark + string(r[len(r)-tail:])
}

// truncate cuts s to at most width runes, the last three being "..." when it cut.
func truncate(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	cut, n := 0, 0
	for i := range s {
		if n == width-3 {
			cut = i
			break
		}
		n++
	}
	return s[:cut] + "..."
}

// outputLines splits a tool's output into the lines worth showing on stderr: tabs expanded,
// carriage returns and trailing blanks dropped, and without the loop guard's trailing
// <system> note, which is for the model.
func outputLines(s string) []string {
	s = strings.ReplaceAll(s, "\r", "")
	if i := strings.LastIndex(s, "\n\n<system>"); i >= 0 && strings.HasSuffix(strings.TrimSpace(s), "</system>") {
		s = s[:i]
	}
	lines := strings.Split(strings.ReplaceAll(s, "\t", "    "), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// formatMS renders a duration in milliseconds the way a person reads it: 85ms, 1.2s, 2m3s.
func formatMS(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", ms)
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		return d.Round(time.Second).String()
	}
}

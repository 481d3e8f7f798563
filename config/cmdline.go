package config

import (
	"errors"
	"reflect"
	"strings"
	"time"

	"github.com/alecthomas/kong"
)

// ParseError is why args did not parse, for a person: err (kong's) becomes the hint for a
// flag of another agent's headless mode, or what a flag given last without its value needs
// ("--max-steps needs a number", where kong would say `expected an int but got "EOL"`).
// hint follows the error on stderr; it is empty after another agent's flag.
func ParseError(app *kong.Application, args []string, err error) (hint string, _ error) {
	if peer := peerFlag(args); peer != nil {
		return "", peer
	}
	if mv := missingValue(app, args); mv != nil {
		err = mv
	}
	return " (kimi-run --help-all lists every flag)", err
}

// peerFlags are flags of other agents' headless modes that kimi-run does not have, each
// with what to use instead: a command line copied from another tool's docs fails with a
// usage error (exit 2) that names kimi-run's own flag.
var peerFlags = map[string]string{
	"max-turns":                    "Claude Code's and goose's: did you mean --max-steps N? (model calls per turn, exit 3)",
	"max-session-turns":            "Qwen Code's: did you mean --max-steps N? (model calls per turn, exit 3)",
	"max-budget-usd":               "Claude Code's: did you mean --max-cost-usd USD? (exit 6)",
	"max-wall-time":                "Qwen Code's: did you mean --timeout DURATION? (exit 124)",
	"dangerously-skip-permissions": "Claude Code's: kimi-run approves every tool call already: leave it out (--sandbox confines commands)",
	"permission-mode":              "Claude Code's: kimi-run approves every tool call already: leave it out (--disallowed-tools refuses calls)",
	"approval-mode":                "Gemini CLI's: kimi-run approves every tool call already: leave it out (--disallowed-tools refuses calls)",
	"full-auto":                    "Codex's: kimi-run approves every tool call already: leave it out (Codex's sandbox is --sandbox workspace-write)",
	"json":                         "Codex's: did you mean --output-format stream-json (NDJSON events) or --output-format json?",
	"allowedTools":                 "Claude Code's: did you mean --allowed-tools RULES? (e.g. 'Shell(go test*)')",
	"disallowedTools":              "Claude Code's: did you mean --disallowed-tools RULES? (e.g. 'Shell(git push*)')",
}

// peerFlag returns why the first flag of args (before "--") that another agent has and
// kimi-run does not is refused, for a command line that did not parse.
func peerFlag(args []string) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		if hint, ok := peerFlags[name]; ok {
			return errors.New("--" + name + " is " + hint)
		}
	}
	return nil
}

// missingValue finds a flag that takes a value given last on the command line, without
// one, and says what it needs. nil when the last word is not such a flag.
func missingValue(app *kong.Application, args []string) error {
	if len(args) == 0 || app == nil {
		return nil
	}
	last := args[len(args)-1]
	for _, f := range app.Flags {
		if f.IsBool() || f.IsCounter() {
			continue
		}
		if last == "--"+f.Name || (f.Short != 0 && last == "-"+string(f.Short)) || containsAlias(f.Aliases, last) {
			return Usagef("%s needs %s", last, valueNoun(f.Target))
		}
	}
	return nil
}

func containsAlias(aliases []string, word string) bool {
	for _, a := range aliases {
		if word == "--"+a {
			return true
		}
	}
	return false
}

// valueNoun says what a flag's value is, for a person.
func valueNoun(v reflect.Value) string {
	if v.Type() == reflect.TypeOf(time.Duration(0)) {
		return "a duration (e.g. 30s, 10m)"
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		if !v.IsNil() {
			return valueNoun(v.Elem())
		}
		return valueNoun(reflect.Zero(v.Type().Elem()))
	}
	return "a value"
}

// RawOutput reads, in one pass over the raw arguments, what they ask of stdout, for an
// error found before the flags could be parsed: the --output-format value (the last one,
// as the parser keeps it) and whether --print asks for Kimi CLI's message lines, which
// never carry kimi-run's result event. (The Kimi flags themselves are resolved in
// kimi.go.) Arguments after "--" are prompt words.
func RawOutput(args []string) (format string, kimiLines bool) {
	for i, a := range args {
		switch {
		case a == "--":
			return format, kimiLines
		case a == "--print" || a == "--print=true":
			kimiLines = true
		case strings.HasPrefix(a, "--output-format="):
			format = strings.TrimPrefix(a, "--output-format=")
		case a == "--output-format" && i+1 < len(args):
			format = args[i+1]
		}
	}
	return format, kimiLines
}

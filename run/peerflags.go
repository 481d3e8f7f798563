package run

import (
	"errors"
	"strings"
)

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

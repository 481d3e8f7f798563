package run

import (
	"strings"

	"github.com/alecthomas/kong"
)

// Kimi CLI compatibility: Kimi CLI's print-mode flags are accepted with Kimi's meaning and
// mapped here onto kimi-run's own, before anything else reads the command line. The README
// section "Coming from Kimi CLI" holds the map for users.

// givenFlags returns the names of the flags the command line gave (not defaults).
func givenFlags(kctx *kong.Context) map[string]bool {
	given := map[string]bool{}
	if kctx == nil {
		return given
	}
	for _, p := range kctx.Path {
		if p.Flag != nil {
			given[p.Flag.Name] = true
		}
	}
	return given
}

// kimiProfile reports whether raw arguments ask for Kimi CLI's print profile (--print), for
// errors found before the flags could be parsed: then stdout carries Kimi's message lines,
// never kimi-run's result event.
func kimiProfile(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--print" || a == "--print=true" {
			return true
		}
	}
	return false
}

// kimiMessages reports whether stdout carries Kimi CLI's message lines: --print with
// --output-format stream-json.
func (cli *CLI) kimiMessages() bool {
	return cli.Print && cli.OutputFormat == "stream-json"
}

// conversing reports whether stdin carries Kimi user messages, one turn each.
func (cli *CLI) conversing() bool { return cli.InputFormat == "stream-json" }

// normalizeKimi maps Kimi CLI's flags onto kimi-run's and refuses the combinations Kimi
// refuses (or that would leave one of two synonyms silently ignored). It runs before the
// configuration is resolved; every error is a usage error.
func normalizeKimi(cli *CLI) error {
	given := cli.given
	if given == nil {
		given = map[string]bool{}
	}
	for _, pair := range [][2]string{
		{"max-steps", "max-steps-per-turn"},
		{"max-retries", "max-retries-per-step"},
		{"ralph", "max-ralph-iterations"},
		{"session", "resume"},
		{"config", "config-file"},
	} {
		if given[pair[0]] && given[pair[1]] {
			return usagef("--%s and --%s cannot be combined: they set the same thing", pair[0], pair[1])
		}
	}

	if cli.Command != nil {
		if cli.Prompt != "" || len(cli.Words) > 0 || cli.PromptFile != "" {
			return usagef("give the prompt one way: -p, -c, prompt words or --prompt-file")
		}
		c := strings.TrimSpace(*cli.Command)
		if c == "" {
			return usagef("empty prompt: -c/--command needs the task text")
		}
		cli.Prompt = c
	}
	if given["max-steps-per-turn"] {
		if cli.MaxStepsPerTurn < 1 {
			return usagef("--max-steps-per-turn must be at least 1")
		}
		n := cli.MaxStepsPerTurn
		cli.MaxSteps = &n
	}
	if given["max-retries-per-step"] && cli.MaxRetriesPerStep < 1 {
		return usagef("--max-retries-per-step must be at least 1 (it counts the first attempt)")
	}
	// Kimi's log switches map onto --log-level; naming both would leave one ignored.
	if (cli.Debug || cli.Verbose) && given["log-level"] {
		return usagef("--debug and --verbose set the log level: they cannot be combined with --log-level")
	}
	switch {
	case cli.Debug:
		cli.LogLevel = "debug"
	case cli.Verbose:
		cli.LogLevel = "info"
	}
	if cli.MaxRalphIterations != nil {
		cli.Ralph = *cli.MaxRalphIterations
	}
	if cli.Resume != "" {
		cli.Session = cli.Resume
	}
	if given["config"] && strings.TrimSpace(cli.Config) == "" {
		return usagef("--config is empty: give the config as JSON or TOML text")
	}
	if cli.FinalMessageOnly && cli.OutputFormat == "stream-json" && !cli.Print {
		return usagef("--final-message-only with --output-format stream-json needs --print (Kimi CLI's message lines); kimi-run's own events always end with the final answer in the result")
	}

	if cli.conversing() {
		switch {
		case cli.NoStdin:
			return usagef("--input-format stream-json reads messages from stdin; it cannot be combined with --no-stdin")
		case cli.Flow != "":
			return usagef("--input-format stream-json cannot be combined with --flow: a flow brings its own prompts")
		case cli.Prompt == "-" || (len(cli.Words) == 1 && cli.Words[0] == "-"):
			return usagef("--input-format stream-json reads messages from stdin; the prompt cannot also be read from it (-)")
		}
	}
	return nil
}

// ralphFromConfig applies loop_control.max_ralph_iterations when no flag set the
// iterations. A flow brings its own graph, so the setting does not apply to it.
func ralphFromConfig(cli *CLI, cfg config) {
	if cfg.ralph == nil || cli.given["ralph"] || cli.given["max-ralph-iterations"] || cli.Flow != "" {
		return
	}
	cli.Ralph = *cfg.ralph
}

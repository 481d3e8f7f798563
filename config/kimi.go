package config

import "strings"

// Kimi CLI compatibility: Kimi CLI's print-mode flags are accepted with Kimi's meaning.
// Those that are another name for a flag say so in their declaration (sets:"flag": -r,
// --max-steps-per-turn, --max-ralph-iterations) and the parser fills the flag from them;
// Resolve reads the others into the setting they name (-c into Prompt,
// --max-retries-per-step into Loop.Attempts, --debug/--verbose into Output.LogLevel).
// conflicts.go refuses two names of one setting given together; checkKimi the values Kimi
// refuses. docs/kimi-cli.md holds the map for users.

// synonyms are the pairs of flags that set the same thing: each Kimi flag declared to set
// another (sets:"flag"), and these, which set it with another meaning.
func (f *Flags) synonyms() [][2]string {
	pairs := [][2]string{
		{"max-retries", "max-retries-per-step"}, // Kimi's counts attempts, not retries
		{"config", "config-file"},               // the text instead of the file
	}
	if f.src != nil {
		pairs = append(pairs, f.src.synonyms...)
	}
	return pairs
}

// checkKimi refuses values of the Kimi flags that Kimi refuses (their conflicts are rows
// of conflicts.go); every error is a usage error.
func checkKimi(f *Flags) error {
	if f.Command != nil && strings.TrimSpace(*f.Command) == "" {
		return Usagef("empty prompt: -c/--command needs the task text")
	}
	if f.Given("max-retries-per-step") && f.MaxRetriesPerStep < 1 {
		return Usagef("--max-retries-per-step must be at least 1 (it counts the first attempt)")
	}
	if f.Given("config") && strings.TrimSpace(f.Config) == "" {
		return Usagef("--config is empty: give the config as JSON or TOML text")
	}
	return nil
}

// checkFlagValues refuses flag values that parse but cannot be meant, before anything
// else runs: a negative wait, and an empty value for a flag whose empty value would
// silently mean "not given" (a new session instead of the one asked for, the default
// endpoint instead of the one asked for). Usually a shell variable that was not set.
func checkFlagValues(f *Flags) error {
	for _, d := range []struct {
		name  string
		value int64
	}{{"--stdin-timeout", int64(f.StdinTimeout)}, {"--session-wait", int64(f.SessionWait)}} {
		if d.value < 0 {
			return Usagef("%s must not be negative", d.name)
		}
	}
	if f.Heartbeat < 0 {
		return Usagef("%s must not be negative (0 turns it off)", f.From("heartbeat"))
	}
	if f.MaxToolCalls < 0 {
		return Usagef("%s must be 0 (no limit) or more, got %d", f.From("max-tool-calls"), f.MaxToolCalls)
	}
	if f.Rewind != nil && *f.Rewind < 0 {
		return Usagef("--rewind must be a checkpoint id, 0 or more (--show-session lists them), got %d", *f.Rewind)
	}
	if f.MaxReplyBytes < 1 {
		return Usagef("--max-reply-bytes must be at least 1, got %d", f.MaxReplyBytes)
	}
	for _, v := range []struct {
		flag, name, value string
	}{
		{"session", "-S/--session", f.Session},
		{"resume", "-r/--resume", f.Resume},
		{"base-url", "--base-url", f.BaseURL},
		{"fork-session", "--fork-session", f.ForkSession},
	} {
		if f.Given(v.flag) && v.value == "" {
			return Usagef("%s is empty (an unset shell variable?); leave the flag out for the default", v.name)
		}
	}
	for _, v := range []struct{ flag, name string }{{"prompt", "-p/--prompt"}, {"command", "-c/--command"}, {"prompt-file", "--prompt-file"}} {
		if n := f.Times(v.flag); n > 1 {
			return Usagef("%s is given %d times; give the prompt once", v.name, n)
		}
	}
	return nil
}

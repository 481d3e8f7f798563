package config

import "strings"

// conflicts are the combinations of flags a command line may not give, in the order they
// are checked: each returns what to tell the user, or "" when the flags are fine. A new
// conflict is a row here and one in TestConflicts. Kimi CLI's other names for a flag
// (synonyms) come first; a value that is wrong on its own is checked elsewhere
// (checkKimi, checkFlagValues, the steps of Resolve).
var conflicts = []func(f *Flags) string{
	func(f *Flags) string {
		for _, pair := range f.synonyms() {
			if f.Given(pair[0]) && f.Given(pair[1]) {
				return "--" + pair[0] + " and --" + pair[1] + " cannot be combined: they set the same thing"
			}
		}
		return ""
	},
	// The session listing modes print and run nothing.
	func(f *Flags) string {
		if f.ListSessions && f.ShowSession != "" {
			return "--list-sessions and --show-session cannot be combined"
		}
		return ""
	},
	func(f *Flags) string {
		if mode := f.housekeeping(); mode != "" && (f.promptWays() > 0 || f.Flow != "") {
			return mode + " prints sessions and runs nothing: it takes no prompt"
		}
		return ""
	},
	func(f *Flags) string {
		if mode := f.housekeeping(); mode != "" && (f.Session != "" || f.Continue || f.NoSession) {
			return mode + " cannot be combined with --session, --continue or --no-session"
		}
		return ""
	},
	func(f *Flags) string {
		if mode := f.housekeeping(); mode != "" && (f.ForkSession != "" || f.Rewind != nil) {
			return mode + " cannot be combined with --fork-session or --rewind"
		}
		return ""
	},
	// Fork and rewind (issue 32 #4).
	func(f *Flags) string {
		switch {
		case f.ForkSession != "" && (f.Continue || f.NoSession):
			return "--fork-session makes a session of its own: it cannot be combined with --continue or --no-session"
		case f.ForkSession != "" && f.ForkSession == f.Session:
			return "--fork-session " + f.ForkSession + " --session " + f.Session + ": the copy needs a name of its own (leave --session out for a new one)"
		case f.Rewind != nil && f.Session == "" && !f.Continue && f.ForkSession == "":
			return "--rewind needs the session to rewind: --session ID, --continue or --fork-session ID"
		case f.RewindFiles && f.Rewind == nil:
			return "--rewind-files needs --rewind CHECKPOINT: the checkpoint to put the files back to"
		}
		return ""
	},
	func(f *Flags) string {
		if f.promptWays() > 1 {
			return "give the prompt one way: -p, -c, prompt words or --prompt-file"
		}
		return ""
	},
	func(f *Flags) string {
		switch {
		case f.NoSession && (f.Session != "" || f.Continue):
			return "--no-session cannot be combined with --session or --continue"
		case f.Session != "" && f.Continue:
			return "--session and --continue cannot be combined"
		}
		return ""
	},
	func(f *Flags) string {
		// The file's Ralph iterations are not for a flow (Resolve leaves them out).
		if f.Flow != "" && f.Ralph != 0 && !f.fromFile("ralph") {
			return "--flow and --ralph cannot be combined"
		}
		return ""
	},
	// Kimi's log switches map onto --log-level; naming both would leave one ignored.
	func(f *Flags) string {
		if (f.Debug || f.Verbose) && f.Given("log-level") {
			return "--debug and --verbose set the log level: they cannot be combined with --log-level"
		}
		return ""
	},
	func(f *Flags) string {
		if f.FinalMessageOnly && f.OutputFormat == "stream-json" && !f.Print {
			return "--final-message-only with --output-format stream-json needs --print (Kimi CLI's message lines); kimi-run's own events always end with the final answer in the result"
		}
		return ""
	},
	func(f *Flags) string {
		if !f.Conversing() {
			return ""
		}
		prompt := f.Prompt
		if f.Command != nil {
			prompt = strings.TrimSpace(*f.Command)
		}
		switch {
		case f.NoStdin:
			return "--input-format stream-json reads messages from stdin; it cannot be combined with --no-stdin"
		case f.Flow != "":
			return "--input-format stream-json cannot be combined with --flow: a flow brings its own prompts"
		case prompt == "-" || (len(f.Words) == 1 && f.Words[0] == "-"):
			return "--input-format stream-json reads messages from stdin; the prompt cannot also be read from it (-)"
		}
		return ""
	},
	func(f *Flags) string {
		if f.Record != "" && f.Replay != "" {
			return "--record and --replay cannot be combined"
		}
		return ""
	},
	func(f *Flags) string {
		if len(f.AllowHost) > 0 && f.Given("sandbox-network") && f.SandboxNetwork == "on" {
			return "--allow-host cuts the network but for the hosts it names: it cannot be combined with --sandbox-network on"
		}
		return ""
	},
	func(f *Flags) string {
		if f.Agent != "" && f.AgentFile != "" {
			return "--agent and --agent-file cannot be combined"
		}
		return ""
	},
}

// Conflict is the first combination of flags the command line may not give, as a usage
// error (exit 2); nil when there is none. Resolve checks it first; the session listing
// modes, which resolve nothing, call it themselves.
func (f *Flags) Conflict() error {
	for _, check := range conflicts {
		if msg := check(f); msg != "" {
			return Usagef("%s", msg)
		}
	}
	return nil
}

// housekeeping is the session listing mode the flags ask for (--list-sessions or
// --show-session), "" for a run.
func (f *Flags) housekeeping() string {
	switch {
	case f.ShowSession != "":
		return "--show-session"
	case f.ListSessions:
		return "--list-sessions"
	}
	return ""
}

// promptWays counts the ways the command line gives the prompt: -p, -c, prompt words and
// --prompt-file (each even when empty).
func (f *Flags) promptWays() int {
	n := 0
	for _, given := range []bool{f.Given("prompt") || f.Prompt != "", f.Command != nil, len(f.Words) > 0, f.Given("prompt-file") || f.PromptFile != ""} {
		if given {
			n++
		}
	}
	return n
}

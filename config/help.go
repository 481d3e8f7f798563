package config

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/kimi-run/kimi-run/completion"
	"github.com/kimi-run/kimi-run/manpage"
)

// helpScreen is what --help shows: the flags a CI job needs, by group, one line each.
// Every flag, with its sources and defaults, the environment and the exit codes are
// --help-all's (FullHelp), which the man page and the completions also read.
var helpScreen = []struct {
	group string
	flags [][2]string // long name, one line about it
}{
	{"Input and output", [][2]string{
		{"prompt", "the task (- reads it from stdin)"},
		{"prompt-file", "read the task from FILE"},
		{"no-stdin", "never read stdin (piped stdin is context)"},
		{"output-format", "text, stream-json (NDJSON events) or json"},
		{"output-last-message", "also write the final answer to FILE"},
		{"json-schema", "the answer must match this schema (exit 7)"},
		{"quiet", "no progress on stderr"},
	}},
	{"Model", [][2]string{
		{"model", "model name ($KIMI_MODEL_NAME)"},
		{"base-url", "OpenAI-compatible endpoint ($KIMI_BASE_URL)"},
		{"config-file", "Kimi CLI config (default ~/.kimi/config.toml)"},
		{"fallback-model", "model to try when the first keeps failing"},
	}},
	{"Limits", [][2]string{
		{"timeout", "wall-clock limit, e.g. 30m (exit 124)"},
		{"max-steps", "model calls per turn (default 1000; exit 3)"},
		{"max-tokens-total", "token budget of the run (exit 6)"},
		{"max-cost-usd", "cost budget, with the model's prices (exit 6)"},
		{"max-tool-calls", "tool-call budget (exit 6)"},
		{"ralph", "repeat up to N more times until STOP (exit 4)"},
	}},
	{"What the agent may do", [][2]string{
		{"sandbox", "confine commands: read-only or workspace-write"},
		{"sandbox-network", "under --sandbox: on, or off (no network)"},
		{"add-dir", "another directory the agent may work in"},
		{"allowed-tools", "allow only these tools, e.g. Shell(go test*)"},
		{"disallowed-tools", "refuse these, e.g. Shell(git push*)"},
		{"fail-on-denial", "a refused call fails the run (exit 9)"},
		{"bare", "read no config, hooks, skills or AGENTS.md"},
	}},
	{"Sessions and replay", [][2]string{
		{"session", "resume session ID, or create it"},
		{"continue", "resume the last session of this work dir"},
		{"session-dir", "keep sessions in DIR"},
		{"no-session", "write no session"},
		{"record", "write the model traffic to a cassette"},
		{"replay", "answer the model calls from a cassette"},
	}},
}

// ShortHelp is the help printer of --help: helpScreen, from the flags of the model.
func ShortHelp(_ kong.HelpOptions, kctx *kong.Context) error {
	flags := map[string]*kong.Flag{}
	for _, f := range kctx.Model.Flags {
		flags[f.Name] = f
	}
	var b strings.Builder
	b.WriteString("Usage: kimi-run [flags] -p TEXT   (or: kimi-run [flags] TASK WORDS...)\n\n" +
		"Run a coding agent once, with nobody present: every tool call is approved\n" +
		"automatically, and commands run with your rights unless --sandbox is given.\n")
	for _, g := range helpScreen {
		fmt.Fprintf(&b, "\n%s:\n", g.group)
		for _, pair := range g.flags {
			f := flags[pair[0]]
			if f == nil {
				return fmt.Errorf("help: no flag --%s", pair[0])
			}
			fmt.Fprintf(&b, "  %-31s %s\n", flagUsage(f), pair[1])
		}
	}
	b.WriteString("\nExit codes: 0 done, 2 usage, 3 4 6 7 a limit or the schema, 5 key refused,\n" +
		"75 and 124 worth a retry (--session resumes); all of them in --help-all.\n\n" +
		"Every flag, with its variables, config keys and default: kimi-run --help-all\n" +
		"Docs: https://github.com/kimi-run/kimi-run#readme\n")
	_, err := io.WriteString(kctx.Stdout, b.String())
	return err
}

// flagUsage is a flag as the help screen shows it: "-p, --prompt TEXT".
func flagUsage(f *kong.Flag) string {
	s := "    --" + f.Name
	if f.Short != 0 {
		s = "-" + string(f.Short) + ", --" + f.Name
	}
	switch {
	case f.IsBool():
	case f.PlaceHolder != "":
		s += " " + f.PlaceHolder
	case f.Enum != "":
		s += " MODE"
	default:
		s += " " + f.FormatPlaceHolder()
	}
	return s
}

// WriteManPage writes kimi-run(1) (package manpage) for this build, with description
// above the flags.
func WriteManPage(w io.Writer, app *kong.Application, version, description string) error {
	DescribeSources(app)
	return manpage.Write(w, app, manpage.Page{
		Description: description,
		Version:     version,
		Date:        manpage.Date(version),
		Commands:    []string{completion.Command + "\n\\fBbash\\fR|\\fBzsh\\fR|\\fBfish\\fR"},
		Notes: "The prompt is the words after the flags, \\fB\\-p\\fR, \\fB\\-\\-prompt\\-file\\fR or stdin. " +
			"\\fBkimi\\-run completion\\fR \\fISHELL\\fR (exactly those two words) writes a completion script " +
			"for bash, zsh or fish.",
	})
}

// Package completion writes kimi-run's shell completion scripts for bash, zsh and fish
// from the kong model of its command line, so a script offers exactly the flags --help
// lists, with their values, and a new flag needs nothing here.
//
// `kimi-run completion SHELL` is recognised only as exactly those two words (Request):
// every other command line, `kimi-run completion of the parser` included, is a prompt. A
// kong subcommand would take the word "completion" from every prompt that starts with it.
package completion

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// Command is the word that asks for a script.
const Command = "completion"

// Shells are the shells there is a script for.
var Shells = []string{"bash", "zsh", "fish"}

// Request reports the shell when args are exactly `completion SHELL`.
func Request(args []string) (string, bool) {
	if len(args) != 2 || args[0] != Command || !slices.Contains(Shells, args[1]) {
		return "", false
	}
	return args[1], true
}

// Write writes the completion script for shell. values lists the accepted values of flags
// that kong does not check against an enum (--agent's built-in agents, say), by flag name.
func Write(w io.Writer, app *kong.Application, shell string, values map[string][]string) error {
	flags := flagsOf(app, values)
	var s string
	switch shell {
	case "bash":
		s = bash(flags)
	case "zsh":
		s = zsh(flags)
	case "fish":
		s = fish(flags)
	default:
		return fmt.Errorf("no completion for shell %q", shell)
	}
	if _, err := io.WriteString(w, s); err != nil {
		return fmt.Errorf("write %s completion: %w", shell, err)
	}
	return nil
}

// commandHelp describes the completion command where a shell shows descriptions.
const commandHelp = "write a completion script for bash, zsh or fish"

// flag is what a completion script needs to know of one flag.
type flag struct {
	long    string   // without dashes
	short   rune     // 0 when none
	aliases []string // other long names
	negated string   // the --no- form of a negatable bool, without dashes
	help    string   // one short line for a menu
	takes   bool     // takes a value
	values  []value  // the values it accepts, when they are known
	file    bool     // its value is a file path
	dir     bool     // its value is a directory
	repeats bool     // may be given more than once
}

// value is one accepted value and what it means.
type value struct{ name, help string }

// flagsOf lists the visible flags of the model, in the order of --help.
func flagsOf(app *kong.Application, extra map[string][]string) []flag {
	var out []flag
	for _, f := range app.Flags {
		if f.Hidden {
			continue
		}
		c := flag{
			long:    f.Name,
			short:   f.Short,
			aliases: f.Aliases,
			takes:   !f.IsBool() && !f.IsCounter(),
			repeats: f.IsSlice() || f.IsMap() || f.IsCounter(),
		}
		if f.IsBool() && f.Tag != nil && f.Tag.Negatable != "" {
			c.negated = "no-" + f.Name
			if f.Tag.Negatable != "_" {
				c.negated = f.Tag.Negatable
			}
		}
		names := extra[f.Name]
		if f.Enum != "" {
			names = f.EnumSlice()
		}
		c.help = flagHelp(f, names)
		for _, n := range names {
			c.values = append(c.values, value{name: n, help: valueHelp(f, n, names)})
		}
		ph := f.PlaceHolder
		if ph == "" && f.Tag != nil {
			ph = f.Tag.PlaceHolder
		}
		c.file = ph == "FILE"
		c.dir = ph == "DIR"
		out = append(out, c)
	}
	return out
}

// flagHelp is the first sentence of the flag's help, unless that sentence describes one of
// its values ("text: the final answer ..."): then it is the values themselves.
func flagHelp(f *kong.Flag, values []string) string {
	help := firstSentence(f.Help)
	for _, v := range values {
		if strings.HasPrefix(help, v+":") || strings.HasPrefix(help, v+" (") {
			return strings.ReplaceAll(f.Name, "-", " ") + ": " + strings.Join(values, ", ")
		}
	}
	return help
}

// valueHelp finds what the flag's help says of value v: the text after "v:" up to the end
// of its clause, or in the parentheses after "v (", or the clause that starts with v. A
// value the help does not describe is "default" when it is the default, else the flag's
// name: never another value's description.
func valueHelp(f *kong.Flag, v string, values []string) string {
	help := strings.Join(strings.Fields(f.Help), " ")
	at := regexp.MustCompile(`(^|: |; |[ (])` + regexp.QuoteMeta(v) + `(:| \(| )`)
	for _, m := range at.FindAllStringSubmatchIndex(help, -1) {
		rest := help[m[1]:]
		sep := help[m[4]:m[5]]
		before := help[m[2]:m[3]]
		starts := before == "" || before == ": " || before == "; "
		switch {
		case sep == " (":
			if end := strings.Index(rest, ")"); end > 0 {
				return rest[:end]
			}
		case sep == ":" || starts:
			return clause(strings.TrimSpace(rest), values)
		}
	}
	if v == f.Default || (f.Default == "" && v == "default") {
		return "default"
	}
	return "a value of --" + f.Name
}

// clause cuts s at the end of its sentence or clause, or where the next value's own
// description starts.
func clause(s string, values []string) string {
	end := len(s)
	for _, stop := range []string{". ", "; "} {
		if i := strings.Index(s, stop); i >= 0 && i < end {
			end = i
		}
	}
	for _, v := range values {
		if i := strings.Index(s, " "+v+": "); i >= 0 && i < end {
			end = i
		}
	}
	return strings.TrimSuffix(strings.TrimSpace(s[:end]), ".")
}

// firstSentence keeps a help text to one short line for a completion menu.
func firstSentence(help string) string {
	help = strings.Join(strings.Fields(help), " ")
	if i := strings.Index(help, ". "); i >= 0 {
		help = help[:i]
	}
	return strings.TrimSuffix(help, ".")
}

// names lists every way to write the flag on the command line.
func (c flag) names() []string {
	n := []string{"--" + c.long}
	for _, a := range c.aliases {
		n = append(n, "--"+a)
	}
	if c.short != 0 {
		n = append(n, "-"+string(c.short))
	}
	return n
}

func (c flag) valueNames() []string {
	var out []string
	for _, v := range c.values {
		out = append(out, v.name)
	}
	return out
}

// shellQuote quotes s for bash, zsh and fish alike: in single quotes, each quote in s
// closed, escaped and reopened.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

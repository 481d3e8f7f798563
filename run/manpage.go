package run

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// writeManPage writes kimi-run(1) in roff (man(7) macros) from the kong model and the
// --help description, so the page and --help cannot disagree. The release archives ship
// it (`kimi-run --man-page > kimi-run.1`). No date: the same version gives the same page.
func writeManPage(w io.Writer, app *kong.Application, version string) error {
	var b strings.Builder
	// The release number alone: "1.2.0 (abc1234, date)" would crowd the page's footer.
	if f := strings.Fields(version); len(f) > 0 {
		version = f[0]
	}
	fmt.Fprintf(&b, ".TH KIMI\\-RUN 1 \"\" \"kimi-run %s\" \"User Commands\"\n", roff(version))
	b.WriteString(".SH NAME\nkimi\\-run \\- run a coding agent once, without a person present\n")
	b.WriteString(".SH SYNOPSIS\n.B kimi-run\n[\\fIflags\\fR] [\\fIprompt\\fR ...]\n.br\n")
	b.WriteString(".B kimi-run completion\n\\fBbash\\fR|\\fBzsh\\fR|\\fBfish\\fR\n")

	// The description: its first paragraph, then the environment and exit codes as written.
	intro, rest, _ := strings.Cut(description, "\n\n")
	b.WriteString(".SH DESCRIPTION\n" + roff(intro) + "\n")
	b.WriteString(".PP\nThe prompt is the words after the flags, \\fB\\-p\\fR, \\fB\\-\\-prompt\\-file\\fR or stdin. " +
		"\\fBkimi-run completion\\fR \\fISHELL\\fR (exactly those two words) writes a completion script for bash, zsh or fish.\n")
	env, exits, _ := strings.Cut(rest, "\n\nExit codes:")
	b.WriteString(".SH ENVIRONMENT\n.nf\n" + roff(strings.TrimPrefix(env, "Environment (flags win over it, and it over the config file):\n")) + "\n.fi\n")
	b.WriteString(".SH EXIT STATUS\n" + roff(strings.Join(strings.Fields(exits), " ")) + "\n")

	b.WriteString(".SH OPTIONS\n")
	group := ""
	for _, f := range app.Flags {
		if f.Hidden {
			continue
		}
		if g := groupTitle(f); g != group {
			group = g
			b.WriteString(".SS " + roff(g) + "\n")
		}
		b.WriteString(".TP\n" + manFlag(f) + "\n" + roff(strings.Join(strings.Fields(f.Help), " ")))
		if f.HasDefault && f.Default != "" && !f.IsBool() {
			b.WriteString(" (default: " + roff(f.Default) + ")")
		}
		b.WriteString("\n")
	}
	b.WriteString(".SH SEE ALSO\nThe README, docs/events.md (the stream\\-json events) and docs/ci.md of " +
		"https://github.com/kimi\\-run/kimi\\-run\n")
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("write man page: %w", err)
	}
	return nil
}

func groupTitle(f *kong.Flag) string {
	if f.Group == nil {
		return "Flags"
	}
	return f.Group.Title
}

// manFlag is the tagged paragraph's head: -p, --prompt=TEXT.
func manFlag(f *kong.Flag) string {
	var parts []string
	if f.Short != 0 {
		parts = append(parts, `\fB\-`+string(f.Short)+`\fR`)
	}
	names := append([]string{f.Name}, f.Aliases...)
	if f.IsBool() && f.Tag != nil && f.Tag.Negatable != "" {
		names = append(names, strings.TrimPrefix(negationOf(f), "--"))
	}
	value := ""
	if !f.IsBool() && !f.IsCounter() {
		ph := f.PlaceHolder
		if ph == "" && f.Tag != nil {
			ph = f.Tag.PlaceHolder
		}
		if ph == "" && f.Enum != "" {
			ph = strings.Join(f.EnumSlice(), "|")
		}
		if ph == "" {
			ph = strings.ToUpper(f.Name)
		}
		value = `=\fI` + roff(ph) + `\fR`
	}
	for _, n := range names {
		parts = append(parts, `\fB\-\-`+roff(n)+`\fR`+value)
	}
	return strings.Join(parts, ", ")
}

// roff escapes text for a man page: backslashes, hyphens (so they stay ASCII minus signs
// that copy and paste), and a line that would start with a control character.
func roff(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

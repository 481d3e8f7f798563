// Package manpage writes kimi-run(1) in roff (man(7) macros) from the kong model of the
// command line and the text of --help, so the page and --help cannot disagree. The
// release archives ship it (`kimi-run --man-page > kimi-run.1`).
package manpage

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/alecthomas/kong"
)

// Page is what the model does not hold.
type Page struct {
	// Description is the text --help prints above the flags: a first paragraph, then
	// "Environment (...):" with one "  NAMES   meaning" line per variable, then
	// "Exit codes: ...".
	Description string
	// Version is the release number for the footer ("1.2.0"; anything after a space is
	// dropped), Date the day the page describes (YYYY-MM-DD).
	Version, Date string
	// Commands are the synopsis lines of commands besides the flags, e.g.
	// "completion \fBbash\fR|\fBzsh\fR|\fBfish\fR", and Notes a paragraph about them.
	Commands []string
	Notes    string
}

// width is the most a source line holds: mandoc's style check asks for 80.
const width = 80

// Write writes the page.
func Write(w io.Writer, app *kong.Application, p Page) error {
	var b strings.Builder
	version := p.Version
	if f := strings.Fields(version); len(f) > 0 {
		version = f[0]
	}
	fmt.Fprintf(&b, ".TH KIMI\\-RUN 1 \"%s\" \"kimi\\-run %s\" \"User Commands\"\n", p.Date, roff(version))
	b.WriteString(".SH NAME\nkimi\\-run \\- run a coding agent once, without a person present\n")
	b.WriteString(".SH SYNOPSIS\n.B kimi-run\n[\\fIflags\\fR] [\\fIprompt\\fR ...]\n")
	for _, c := range p.Commands {
		b.WriteString(".br\n.B kimi-run\n" + c + "\n")
	}

	intro, rest, _ := strings.Cut(p.Description, "\n\n")
	b.WriteString(".SH DESCRIPTION\n" + text(intro) + "\n")
	if p.Notes != "" {
		b.WriteString(".PP\n" + wrap(p.Notes) + "\n")
	}
	env, exits, _ := strings.Cut(rest, "\n\nExit codes:")
	writeEnvironment(&b, env)
	b.WriteString(".SH EXIT STATUS\n" + text(exits) + "\n")

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
		help := f.Help
		if f.HasDefault && f.Default != "" && !f.IsBool() {
			help += " (default: " + f.Default + ")"
		}
		b.WriteString(".TP\n" + flagHead(f) + "\n" + text(help) + "\n")
	}
	b.WriteString(".SH SEE ALSO\n" + text("The README, docs/events.md (the stream-json events) and docs/ci.md of "+
		"https://github.com/kimi-run/kimi-run") + "\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write man page: %w", err)
	}
	return nil
}

// envLine is a row of the description's environment table: "  NAME[, NAME]   meaning",
// or the names alone on a line when they are too long for their column; envMore is a
// line that goes on with the row above it (indented more than a row).
var (
	envLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {1,3}(\S+(?:, \S+)*)(?:\s{2,}(.*))?$`) })
	envMore = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {4,}(\S.*)$`) })
)

// writeEnvironment turns the description's aligned table into tagged paragraphs, which
// fit any width; a line that is not a row (a closing remark) becomes a paragraph.
func writeEnvironment(b *strings.Builder, env string) {
	b.WriteString(".SH ENVIRONMENT\n")
	lines := strings.Split(env, "\n")
	if len(lines) > 0 && strings.HasPrefix(lines[0], "Environment") {
		head := strings.TrimSuffix(strings.TrimPrefix(lines[0], "Environment ("), "):")
		if head != lines[0] {
			b.WriteString(text(strings.ToUpper(head[:1])+head[1:]+".") + "\n")
		}
		lines = lines[1:]
	}
	var names, meaning []string // the row being read
	flush := func() {
		if names != nil {
			b.WriteString(".TP\n" + strings.Join(names, ", ") + "\n" + text(strings.Join(meaning, " ")) + "\n")
		}
		names, meaning = nil, nil
	}
	for _, l := range lines {
		if m := envMore().FindStringSubmatch(l); m != nil && names != nil {
			meaning = append(meaning, m[1])
			continue
		}
		flush()
		if m := envLine().FindStringSubmatch(l); m != nil {
			for _, n := range strings.Split(m[1], ", ") {
				names = append(names, `\fB`+roff(n)+`\fR`)
			}
			if m[2] != "" {
				meaning = append(meaning, m[2])
			}
		} else if strings.TrimSpace(l) != "" {
			b.WriteString(".PP\n" + text(l) + "\n")
		}
	}
	flush()
}

func groupTitle(f *kong.Flag) string {
	if f.Group == nil {
		return "Flags"
	}
	return f.Group.Title
}

// flagHead is the tagged paragraph's head: -p, --prompt=TEXT.
func flagHead(f *kong.Flag) string {
	var parts []string
	if f.Short != 0 {
		parts = append(parts, `\fB\-`+string(f.Short)+`\fR`)
	}
	names := append([]string{f.Name}, f.Aliases...)
	if f.IsBool() && f.Tag != nil && f.Tag.Negatable != "" {
		neg := "no-" + f.Name
		if f.Tag.Negatable != "_" {
			neg = f.Tag.Negatable
		}
		names = append(names, neg)
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

// text is prose for a paragraph: its whitespace collapsed, escaped, in lines of at most
// width bytes (the formatter joins them again).
func text(s string) string {
	return wrap(roff(strings.Join(strings.Fields(s), " ")))
}

// wrap breaks escaped text at spaces into lines of at most width bytes (a longer word
// keeps its own line) and keeps a line from starting as a control line.
func wrap(s string) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

// roff escapes text for a man page: backslashes, and hyphens, so they stay ASCII minus
// signs that copy and paste.
func roff(s string) string {
	return strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
}

package tools

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kimi-run/kimi-run/tools/search"
)

// grepPage is one page of results as rg would print them, within grepCharBudget.
type grepPage struct {
	text        string // the lines, each ending in a newline; "--" between context groups
	shown       int    // result lines shown, separators not counted
	cutByBudget bool
}

// page lays out the page of results the call asked for.
func (c *grepCall) page(m *search.Matches) grepPage {
	var b strings.Builder
	var p grepPage
	prevFile, prevNum := -1, 0
	emit := func(file int, line string, num int) bool {
		if p.shown > 0 && b.Len()+len(line) > grepCharBudget {
			p.cutByBudget = true
			return false
		}
		if c.context() && p.shown > 0 && (file != prevFile || num != prevNum+1) {
			b.WriteString("--\n")
		}
		b.WriteString(line)
		b.WriteByte('\n')
		prevFile, prevNum = file, num
		p.shown++
		return true
	}
outer:
	for i, f := range m.Files {
		switch c.q.Mode {
		case search.FilesWithMatches:
			if !emit(i, f.Path, 0) {
				break outer
			}
		case search.CountMatches:
			if !emit(i, f.Path+":"+strconv.Itoa(f.Matches), 0) {
				break outer
			}
		case search.Content:
			for _, l := range f.Lines {
				if !emit(i, c.formatLine(f.Path, l), l.Num) {
					break outer
				}
			}
		}
	}
	p.text = b.String()
	return p
}

// render formats a page of results and the notes about what is not shown.
func (c *grepCall) render(m *search.Matches) string {
	p := c.page(m)
	var b strings.Builder
	b.WriteString(p.text)
	shown, cutByBudget := p.shown, p.cutByBudget

	var notes []string
	unit := "files"
	if c.q.Mode == search.Content {
		unit = "lines"
	}
	offset := c.q.Offset
	switch {
	case m.TotalFiles == 0:
		b.WriteString("No matches found.\n")
	case shown == 0 && offset >= m.Total:
		notes = append(notes, fmt.Sprintf("offset %d is past the end: there are %d %s of results.", offset, m.Total, unit))
	}
	if c.q.Mode == search.CountMatches && m.TotalFiles > 0 {
		notes = append(notes, fmt.Sprintf("Total: %s in %s.", countNoun(m.TotalMatches, "match"), countNoun(m.TotalFiles, "file")))
	}
	if next := offset + shown; shown > 0 && next < m.Total {
		why := ""
		if cutByBudget {
			why = fmt.Sprintf(", cut to stay under %d characters", grepCharBudget)
		}
		notes = append(notes, fmt.Sprintf("Showing %s %d-%d of %d%s. Use offset=%d to see more.",
			unit, offset+1, next, m.Total, why, next))
	}
	if len(m.Secrets) > 0 {
		notes = append(notes, secretsNote(m.Secrets))
	}
	if n := len(m.TooLarge); n > 0 {
		notes = append(notes, fmt.Sprintf("Skipped %s over %d MiB, too large for a multiline search: %s",
			countNoun(n, "file"), search.MultilineMaxBytes>>20, strings.Join(m.TooLarge[:min(n, 5)], ", ")))
	}
	out := b.String()
	if len(notes) > 0 {
		if out != "" {
			out += "\n"
		}
		out += strings.Join(notes, "\n")
	}
	return strings.TrimSuffix(out, "\n")
}

// formatLine renders a content line as rg does: ':' after the path and line number of a
// match, '-' for context.
func (c *grepCall) formatLine(path string, l search.Line) string {
	sep := "-"
	if l.Match {
		sep = ":"
	}
	if c.lineNumbers {
		return path + sep + strconv.Itoa(l.Num) + sep + l.Text
	}
	return path + sep + l.Text
}

// secretsNote names the files skipped because they may hold secrets (sorted by path).
func secretsNote(skipped []search.Skip) string {
	if len(skipped) == 1 {
		return fmt.Sprintf("Skipped %s, never searched: %s.", skipped[0].Path, skipped[0].Reason)
	}
	names := make([]string, 0, 3)
	for _, s := range skipped[:min(len(skipped), 3)] {
		names = append(names, s.Path)
	}
	more := ""
	if len(skipped) > 3 {
		more = ", ..."
	}
	return fmt.Sprintf("Skipped %d files that may hold secrets (environment files, keys, credentials), never searched: %s%s.",
		len(skipped), strings.Join(names, ", "), more)
}

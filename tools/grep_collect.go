package tools

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// grepMaxLineChars caps one shown line; the agent cuts longer lines anyway.
const grepMaxLineChars = 2000

// grepLine is one output line of content mode.
type grepLine struct {
	num   int
	text  string
	match bool // a matching line, as opposed to context
}

// grepFile is what one searched file contributes to the output.
type grepFile struct {
	path    string // as shown to the model
	mtime   time.Time
	lines   []grepLine // content mode, at most the collector's keep lines
	units   int        // output lines the file produces in full
	matches int        // matches counted in count mode
}

// before orders files newest first, then by path.
func (f *grepFile) before(o *grepFile) bool {
	if !f.mtime.Equal(o.mtime) {
		return f.mtime.After(o.mtime)
	}
	return f.path < o.path
}

// grepSkip is a file left out because it looks like it holds secrets.
type grepSkip struct {
	path, reason string
}

// grepSkips lists the files a search left out, for the notes under the results.
type grepSkips struct {
	secrets  []grepSkip
	tooLarge []string // files too large for a multiline search
}

// grepCollector gathers per-file results, which arrive in any order, and keeps only
// those that can appear in the requested page: memory is bounded by offset+head_limit
// lines, not by the size of the tree. Files are ordered newest first.
type grepCollector struct {
	keep    int
	content bool
	files   []*grepFile // the retained prefix, in output order
	kept    int         // output lines held by files

	totalFiles, totalUnits, totalMatches int
}

func (c *grepCollector) stored(f *grepFile) int {
	if c.content {
		return len(f.lines)
	}
	return 1
}

// add records one file that matched.
func (c *grepCollector) add(f *grepFile) {
	c.totalFiles++
	c.totalUnits += f.units
	c.totalMatches += f.matches
	i := sort.Search(len(c.files), func(i int) bool { return f.before(c.files[i]) })
	if i == len(c.files) && c.kept >= c.keep {
		return
	}
	c.files = append(c.files, nil)
	copy(c.files[i+1:], c.files[i:])
	c.files[i] = f
	c.kept += c.stored(f)
	// Drop files that now lie wholly past the page, then trim the last one.
	for len(c.files) > 0 {
		last := c.files[len(c.files)-1]
		if c.kept-c.stored(last) < c.keep {
			break
		}
		c.kept -= c.stored(last)
		c.files = c.files[:len(c.files)-1]
	}
	if c.content && c.kept > c.keep {
		last := c.files[len(c.files)-1]
		cut := c.kept - c.keep
		last.lines = last.lines[:len(last.lines)-cut]
		c.kept -= cut
	}
}

// render formats the requested page and the notes about what is not shown.
func (c *grepCollector) render(q *grepQuery, skips *grepSkips) string {
	var b strings.Builder
	shown, pos, cutByBudget := 0, 0, false
	var prevFile *grepFile
	prevNum := 0
	emit := func(f *grepFile, line string, num int) bool {
		if pos < q.offset {
			pos++
			return true
		}
		if shown == q.limit {
			return false
		}
		if shown > 0 && b.Len()+len(line) > grepCharBudget {
			cutByBudget = true
			return false
		}
		if q.context() && shown > 0 && (f != prevFile || num != prevNum+1) {
			b.WriteString("--\n")
		}
		b.WriteString(line)
		b.WriteByte('\n')
		prevFile, prevNum = f, num
		shown++
		pos++
		return true
	}
outer:
	for _, f := range c.files {
		switch q.mode {
		case grepFiles:
			if !emit(f, f.path, 0) {
				break outer
			}
		case grepCount:
			if !emit(f, f.path+":"+strconv.Itoa(f.matches), 0) {
				break outer
			}
		case grepContent:
			for _, l := range f.lines {
				if !emit(f, formatGrepLine(q, f.path, l), l.num) {
					break outer
				}
			}
		}
	}

	var notes []string
	unit := "files"
	if q.mode == grepContent {
		unit = "lines"
	}
	switch {
	case c.totalFiles == 0:
		b.WriteString("No matches found.\n")
	case shown == 0 && q.offset >= c.totalUnits:
		notes = append(notes, fmt.Sprintf("offset %d is past the end: there are %d %s of results.", q.offset, c.totalUnits, unit))
	}
	if q.mode == grepCount && c.totalFiles > 0 {
		notes = append(notes, fmt.Sprintf("Total: %s in %s.", countNoun(c.totalMatches, "match"), countNoun(c.totalFiles, "file")))
	}
	if next := q.offset + shown; shown > 0 && next < c.totalUnits {
		why := ""
		if cutByBudget {
			why = fmt.Sprintf(", cut to stay under %d characters", grepCharBudget)
		}
		notes = append(notes, fmt.Sprintf("Showing %s %d-%d of %d%s. Use offset=%d to see more.",
			unit, q.offset+1, next, c.totalUnits, why, next))
	}
	if len(skips.secrets) > 0 {
		notes = append(notes, secretsNote(skips.secrets))
	}
	if n := len(skips.tooLarge); n > 0 {
		slices.Sort(skips.tooLarge)
		notes = append(notes, fmt.Sprintf("Skipped %s over %d MiB, too large for a multiline search: %s",
			countNoun(n, "file"), grepMultilineMax>>20, strings.Join(skips.tooLarge[:min(n, 5)], ", ")))
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

// formatGrepLine renders a content line as rg does: ':' after the path and line number of
// a match, '-' for context.
func formatGrepLine(q *grepQuery, path string, l grepLine) string {
	sep := "-"
	if l.match {
		sep = ":"
	}
	if q.lineNumbers {
		return path + sep + strconv.Itoa(l.num) + sep + l.text
	}
	return path + sep + l.text
}

func secretsNote(skipped []grepSkip) string {
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].path < skipped[j].path })
	if len(skipped) == 1 {
		return fmt.Sprintf("Skipped %s, never searched: %s.", skipped[0].path, skipped[0].reason)
	}
	names := make([]string, 0, 3)
	for _, s := range skipped[:min(len(skipped), 3)] {
		names = append(names, s.path)
	}
	more := ""
	if len(skipped) > 3 {
		more = ", ..."
	}
	return fmt.Sprintf("Skipped %d files that may hold secrets (environment files, keys, credentials), never searched: %s%s.",
		len(skipped), strings.Join(names, ", "), more)
}

// lineText converts a found line to the text kept for output: a trailing "\r" removed,
// invalid UTF-8 replaced and anything past grepMaxLineChars cut.
func lineText(b []byte) string {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	cut := false
	if len(b) > grepMaxLineChars {
		i := grepMaxLineChars
		for i > 0 && !utf8.RuneStart(b[i]) {
			i--
		}
		b, cut = b[:i], true
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if cut {
		s += " [...]"
	}
	return s
}

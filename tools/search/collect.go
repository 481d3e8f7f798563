package search

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// MaxLineBytes caps one shown line (cut at a character boundary, then marked " [...]"),
// so a minified file cannot fill a page with one line.
const MaxLineBytes = 2000

// before orders files newest first, then by path.
func (f *File) before(o *File) bool {
	if !f.ModTime.Equal(o.ModTime) {
		return f.ModTime.After(o.ModTime)
	}
	return f.Path < o.Path
}

// skips lists the files a search left out.
type skips struct {
	secrets  []Skip
	tooLarge []string // files too large for a multiline search
}

// collector gathers per-file results, which arrive in any order, and keeps only those
// that can appear in the requested page: memory is bounded by offset+limit lines, not by
// the size of the tree. Files are ordered newest first.
type collector struct {
	keep    int
	content bool
	// secret tells the files never searched (Sensitive, through root's links too).
	secret func(path string) (reason string, ok bool)
	files  []*File // the retained prefix, in output order
	kept   int     // output lines held by files

	totalFiles, totalUnits, totalMatches int
}

func (c *collector) stored(f *File) int {
	if c.content {
		return len(f.Lines)
	}
	return 1
}

// add records one file that matched.
func (c *collector) add(f *File) {
	c.totalFiles++
	c.totalUnits += f.units
	c.totalMatches += f.Matches
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
		last.Lines = last.Lines[:len(last.Lines)-cut]
		c.kept -= cut
	}
}

// matches cuts the page that starts offset output lines in.
func (c *collector) matches(offset int, s *skips) *Matches {
	m := &Matches{TotalFiles: c.totalFiles, Total: c.totalUnits, TotalMatches: c.totalMatches,
		Secrets: s.secrets, TooLarge: s.tooLarge}
	slices.Sort(m.TooLarge)
	slices.SortFunc(m.Secrets, func(a, b Skip) int { return strings.Compare(a.Path, b.Path) })
	for _, f := range c.files {
		n := c.stored(f)
		if offset >= n {
			offset -= n
			continue
		}
		if c.content {
			f.Lines = f.Lines[offset:]
		}
		offset = 0
		m.Files = append(m.Files, *f)
	}
	return m
}

// lineText converts a found line to the text kept for output: a trailing "\r" removed,
// invalid UTF-8 replaced and anything past MaxLineBytes cut.
func lineText(b []byte) string {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	cut := false
	if len(b) > MaxLineBytes {
		i := MaxLineBytes
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

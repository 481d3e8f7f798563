package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on the text of one tool result as the model receives it. Both count characters
// (runes), not bytes, and include the markers Cap adds.
const (
	// MaxOutputChars is the most characters a capped result holds in all.
	MaxOutputChars = 50_000
	// MaxLineChars is the most characters one line of a capped result holds.
	MaxLineChars = 2_000
)

// TruncatedMarker ends a line that Cap shortened.
const TruncatedMarker = "[...truncated]"

// nulEscape stands in for a NUL byte: NULs break some providers' JSON handling and
// carry no meaning for the model.
const nulEscape = `\x00`

// noteReserve is the room kept at the end of a capped result for its closing note.
const noteReserve = 300

// Cap returns s limited to MaxOutputChars characters in all and MaxLineChars characters
// a line. A shortened line ends with TruncatedMarker; when anything was dropped, a last
// line says how much. Invalid UTF-8 becomes U+FFFD and NUL bytes become the text \x00,
// so the result is always valid UTF-8. Text already within the limits is returned as is.
//
// Cap does work proportional to what it keeps, plus a fast byte scan of the rest, so it
// stays cheap on very large input.
func Cap(s string) string {
	if fitsAsIs(s) {
		return s
	}
	c := capper{budget: MaxOutputChars - noteReserve}
	c.out = make([]byte, 0, min(len(s)+len(s)/8, 4*MaxOutputChars))
	pos := c.run(s)
	return c.finish(s, pos)
}

// fitsAsIs reports whether s needs no change. Byte counts bound character counts from
// above, so a byte-length check is enough here.
func fitsAsIs(s string) bool {
	if len(s) > MaxOutputChars || strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
		return false
	}
	for len(s) > MaxLineChars {
		i := strings.IndexByte(s, '\n')
		if i < 0 || i > MaxLineChars {
			return false
		}
		s = s[i+1:]
	}
	return true
}

// capper builds a capped copy of its input.
type capper struct {
	out       []byte
	budget    int  // characters left for content
	cutLines  int  // lines shortened to MaxLineChars
	cutBytes  int  // input bytes dropped from shortened lines
	exhausted bool // the total budget ran out
}

// run copies lines from s until s ends or the budget runs out, and returns the input
// position where copying stopped.
func (c *capper) run(s string) int {
	pos := 0
	for pos < len(s) && !c.exhausted {
		end := strings.IndexByte(s[pos:], '\n')
		next := len(s) // position after this line and its newline
		if end < 0 {
			end = len(s)
		} else {
			end += pos
			next = end + 1
		}
		pos = c.line(s, pos, end, next)
	}
	return pos
}

// line copies s[start:end] (one line without its newline) and the newline if next > end.
// It returns where the input was consumed to.
func (c *capper) line(s string, start, end, next int) int {
	const keep = MaxLineChars - len(TruncatedMarker) // characters kept on a cut line
	chars := 0                                       // characters written for this line
	markOut, markIn, markChars := -1, 0, 0           // where the kept head of a cut line ends
	i := start
	for i < end {
		b := s[i]
		w, size := 1, 1
		if b >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(s[i:end])
		} else if b == 0 {
			w = len(nulEscape)
		}
		if chars+w > MaxLineChars {
			break
		}
		if c.budget < w {
			c.exhausted = true
			return i
		}
		if markOut < 0 && chars+w > keep {
			markOut, markIn, markChars = len(c.out), i, chars
		}
		switch {
		case b == 0:
			c.out = append(c.out, nulEscape...)
		case size == 1 && b >= utf8.RuneSelf:
			c.out = utf8.AppendRune(c.out, utf8.RuneError)
		default:
			c.out = append(c.out, s[i:i+size]...)
		}
		i += size
		chars += w
		c.budget -= w
	}
	if i < end {
		// The line is longer than MaxLineChars: keep its head and mark the cut. The
		// marker may cost a few characters more than it replaces; noteReserve covers that.
		c.out = append(c.out[:markOut], TruncatedMarker...)
		c.budget += chars - markChars - len(TruncatedMarker)
		c.cutLines++
		c.cutBytes += end - markIn
	}
	if next > end {
		if c.budget < 1 {
			c.exhausted = true
			return end
		}
		c.out = append(c.out, '\n')
		c.budget--
	}
	return next
}

// finish appends the closing note when anything was dropped and returns the result.
func (c *capper) finish(s string, pos int) string {
	rest := s[pos:]
	if len(rest) == 0 && c.cutLines == 0 {
		return string(c.out)
	}
	var parts []string
	if len(rest) > 0 {
		lines := strings.Count(rest, "\n")
		if !strings.HasSuffix(rest, "\n") {
			lines++
		}
		parts = append(parts, fmt.Sprintf("the last %d bytes (%d lines) were dropped to stay within %d characters",
			len(rest), lines, MaxOutputChars))
	}
	if c.cutLines > 0 {
		parts = append(parts, fmt.Sprintf("%d lines longer than %d characters were cut (about %d bytes)",
			c.cutLines, MaxLineChars, c.cutBytes))
	}
	if n := len(c.out); n > 0 && c.out[n-1] != '\n' {
		c.out = append(c.out, '\n')
	}
	c.out = append(c.out, "[output truncated: "...)
	c.out = append(c.out, strings.Join(parts, "; ")...)
	c.out = append(c.out, ']')
	return string(c.out)
}

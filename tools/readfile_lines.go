package tools

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// numberedLine is one line picked for output, already shortened to ReadMaxLineChars.
type numberedLine struct {
	n    int
	text string
	cut  bool
}

// lineSelection is what a read picked from a file.
type lineSelection struct {
	lines []numberedLine
	total int // lines in the file
	start int // number of the first line picked (or asked for, when none was)
}

// lineScanner reads a file line by line, keeping only the part of each line that can be
// shown, so a single huge line costs a bounded amount of memory.
type lineScanner struct {
	r   *bufio.Reader
	buf []byte
}

// keepBytes is enough bytes for ReadMaxLineChars characters and one more, so a cut can
// be detected.
const keepBytes = (ReadMaxLineChars + 1) * utf8.UTFMax

// next returns the next line without its newline; when keep is false the text is not
// collected. ok is false at the end of the file.
func (s *lineScanner) next(keep bool) (text []byte, overflow, ok bool, err error) {
	s.buf = s.buf[:0]
	got := false
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(chunk) > 0 {
			got = true
		}
		if keep {
			room := keepBytes - len(s.buf)
			if len(chunk) > room {
				overflow = true
				chunk = chunk[:max(room, 0)]
			}
			s.buf = append(s.buf, chunk...)
		}
		switch {
		case err == nil:
			return trimNewline(s.buf), overflow, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return trimNewline(s.buf), overflow, got, nil
		default:
			return nil, false, false, err
		}
	}
}

func trimNewline(p []byte) []byte {
	if n := len(p); n > 0 && p[n-1] == '\n' {
		return p[:n-1]
	}
	return p
}

// countRest counts the lines left in the reader without looking at their text.
func (s *lineScanner) countRest(ctx context.Context) (int, error) {
	lines := 0
	for i := 0; ; i++ {
		if i%256 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		_, _, ok, err := s.next(false)
		if err != nil || !ok {
			return lines, err
		}
		lines++
	}
}

// shorten turns kept line bytes into valid text of at most ReadMaxLineChars characters
// and reports whether the line was longer.
func shorten(p []byte, overflow bool) (string, bool) {
	text := strings.ToValidUTF8(string(p), "\uFFFD")
	if !overflow && utf8.RuneCountInString(text) <= ReadMaxLineChars {
		return text, false
	}
	return firstChars(text, ReadMaxLineChars), true
}

// fitLine cuts text to room characters, ending a cut line with "...".
func fitLine(text string, cut bool, room int) (string, bool) {
	if !cut && utf8.RuneCountInString(text) <= room {
		return text, false
	}
	return firstChars(text, room-len("...")) + "...", true
}

// firstChars returns the first n characters of s.
func firstChars(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// selectRange picks up to want lines starting at line first and counts the whole file.
func selectRange(ctx context.Context, r *bufio.Reader, first, want int) (lineSelection, error) {
	s := &lineScanner{r: r}
	sel := lineSelection{start: first}
	n := 0
	for {
		if n%256 == 0 && ctx.Err() != nil {
			return sel, ctx.Err()
		}
		inRange := n+1 >= first && len(sel.lines) < want
		text, overflow, ok, err := s.next(inRange)
		if err != nil {
			return sel, err
		}
		if !ok {
			break
		}
		n++
		if inRange {
			t, cut := shorten(text, overflow)
			sel.lines = append(sel.lines, numberedLine{n: n, text: t, cut: cut})
			continue
		}
		if len(sel.lines) == want {
			rest, err := s.countRest(ctx)
			if err != nil {
				return sel, err
			}
			n += rest
			break
		}
	}
	sel.total = n
	return sel, nil
}

// selectTail picks the first want of the last k lines, keeping a ring of k raw lines
// whose buffers are reused, so a long file costs no allocation per line.
func selectTail(ctx context.Context, r *bufio.Reader, k, want int) (lineSelection, error) {
	type slot struct {
		text     []byte
		overflow bool
	}
	s := &lineScanner{r: r}
	ring := make([]slot, 0, min(k, 64))
	n := 0
	for {
		if n%256 == 0 && ctx.Err() != nil {
			return lineSelection{}, ctx.Err()
		}
		text, overflow, ok, err := s.next(true)
		if err != nil {
			return lineSelection{}, err
		}
		if !ok {
			break
		}
		n++
		if len(ring) < k {
			ring = append(ring, slot{text: append([]byte(nil), text...), overflow: overflow})
			continue
		}
		sl := &ring[(n-1)%k]
		sl.text = append(sl.text[:0], text...)
		sl.overflow = overflow
	}
	first := max(n-k+1, 1)
	sel := lineSelection{total: n, start: first}
	for i := first; i <= n && len(sel.lines) < want; i++ {
		sl := ring[(i-1)%k]
		t, cut := shorten(sl.text, sl.overflow)
		sel.lines = append(sel.lines, numberedLine{n: i, text: t, cut: cut})
	}
	return sel, nil
}

package scrub

import "bytes"

// Encoders wrap base64 into lines (`base64` at 76 characters, PEM and `openssl` at 64), so
// a key's encoding may have a line break inside it. A block of lines of base64 characters
// of one length (at least minWrap), and the shorter line that may end it, is matched as
// one text; when it holds a form, it is written as that one line, scrubbed. Finding the
// blocks costs one search for each line's end and, where a line is no longer than the one
// before, a look at their characters (the first that is not base64 ends it).

const minWrap = 16

// unwrapped returns p with every wrapped base64 block that holds a form replaced by the
// block joined and scrubbed, and whether there was one. The set's lock is held.
func unwrapped(m *matcher, forms [][]byte, p []byte) ([]byte, bool) {
	var out []byte
	last := 0 // p[:last] is in out
	block, width := -1, 0
	prev, prevLen := 0, -1   // the line before, when not in a block
	flush := func(end int) { // the block ends at end (its last line's end, "\n" excluded)
		joined := bytes.ReplaceAll(p[block:end], []byte{'\n'}, nil)
		if clean, ok := replace(m, forms, joined); ok {
			out = append(append(out, p[last:block]...), clean...)
			last = end
		}
		block, prevLen = -1, -1
	}
	for start := 0; start <= len(p); {
		end := bytes.IndexByte(p[start:], '\n')
		if end < 0 {
			end = len(p)
		} else {
			end += start
		}
		n := end - start
		switch {
		case block >= 0 && n == width && isBase64(p[start:end]):
		case block >= 0 && n < width && n > 0 && isBase64(p[start:end]):
			flush(end)
		case block >= 0:
			flush(start - 1)
			prev, prevLen = start, n
		case n > 0 && n <= prevLen && prevLen >= minWrap && isBase64(p[prev:prev+prevLen]) && isBase64(p[start:end]):
			block, width = prev, prevLen
			if n < width {
				flush(end)
			}
		default:
			prev, prevLen = start, n
		}
		start = end + 1
	}
	if block >= 0 {
		flush(len(p))
	}
	if out == nil {
		return nil, false
	}
	return append(out, p[last:]...), true
}

func isBase64(p []byte) bool {
	for _, c := range p {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_' || c == '=') {
			return false
		}
	}
	return true
}

// maxWrap is the longest line taken for a line of wrapped base64 at the end of a stream
// (encoders wrap at 64 or 76 characters).
const maxWrap = 1 << 10

// wrapTail is the length of the end of p that may begin a wrapped base64 block whose form
// is not whole yet: its unfinished line when that may be a line of one (base64's standard
// characters, '=' only at its end), and the lines of base64 characters before it, back to
// the line in which the last len(longest form)-1 of their characters begin.
func (s *Set) wrapTail(p []byte) int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	last := bytes.LastIndexByte(p, '\n')
	if len(s.forms) == 0 || len(p)-last-1 > maxWrap || !wrapLine(p[last+1:]) {
		return 0
	}
	need, start, chars := len(s.forms[0])-1, last+1, len(p)-last-1
	for end := last; end >= 0 && chars < need; {
		nl := bytes.LastIndexByte(p[:end], '\n')
		line := p[nl+1 : end]
		if len(line) < minWrap || len(line) > maxWrap || !isBase64(line) {
			break
		}
		start, end, chars = nl+1, nl, chars+len(line)
	}
	return len(p) - start
}

// wrapLine reports whether p may be (the beginning of) a line of base64 an encoder wrapped.
func wrapLine(p []byte) bool {
	i := bytes.IndexByte(p, '=')
	if i < 0 {
		i = len(p)
	}
	return isBase64(p[:i]) && !bytes.ContainsAny(p[:i], "-_") && len(bytes.Trim(p[i:], "=")) == 0
}

package search

import (
	"bytes"
	"errors"
	"io"
	"os"
)

// MultilineMaxBytes bounds the files a Multiline search reads whole; larger ones are
// listed in Matches.TooLarge.
const MultilineMaxBytes = 64 << 20

const (
	readSize   = 64 << 10 // first read; also the buffer kept between files
	maxLineLen = 16 << 20 // a line longer than this is searched in pieces
	binaryScan = 8 << 10  // a NUL byte this early marks a binary file
)

// errTooLarge marks a file too large to read whole for a multiline search.
var errTooLarge = errors.New("file too large for a multiline search")

// scanner searches one file at a time; each worker owns one, so its buffer is reused
// without locking. A file is read in blocks of whole lines, so memory stays bounded by
// the longest line, not the file size (multiline mode, which must see the whole file,
// is the exception and is capped by MultilineMaxBytes).
type scanner struct {
	g    *Grep
	q    *Query
	keep int // lines of one file to retain
	buf  []byte

	// per-file state
	file   *File
	lineNo int // number of the first line of the next block
	after  int // context lines still owed after the last match
	ring   lineRing
	done   bool // files mode: a match was found, stop reading
}

func newScanner(g *Grep) *scanner {
	s := &scanner{g: g, q: &g.q, keep: g.keep(), buf: make([]byte, readSize)}
	s.ring.items = make([]lineRef, g.q.Before)
	return s
}

// scanFile searches the file at path and returns its result (without its display path),
// or nil when the file has no match, is binary, or cannot be read.
func (s *scanner) scanFile(path string) (*File, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	s.file = &File{}
	s.lineNo, s.after, s.done = 1, 0, false
	s.ring.reset()
	defer s.shrink()

	n, eof, err := fill(f, s.buf)
	if err != nil {
		return nil, nil
	}
	if bytes.IndexByte(s.buf[:min(n, binaryScan)], 0) >= 0 {
		return nil, nil
	}
	if s.q.Multiline {
		if !eof {
			if n, err = s.readAll(f, n); err != nil {
				if errors.Is(err, errTooLarge) {
					return nil, err
				}
				return nil, nil
			}
		}
		s.block(s.buf[:n], s.multilineStarts(s.buf[:n]))
	} else if err := s.scanBlocks(f, n, eof); err != nil {
		return nil, nil
	}
	if s.file.units == 0 {
		return nil, nil
	}
	if info, err := os.Stat(path); err == nil {
		s.file.ModTime = info.ModTime()
	}
	return s.file, nil
}

// scanBlocks searches a file block by block; the buffer holds n bytes already read.
func (s *scanner) scanBlocks(f io.Reader, n int, eof bool) error {
	for {
		data := s.buf[:n]
		end := n
		if !eof {
			end = bytes.LastIndexByte(data, '\n') + 1
			if end == 0 && len(s.buf) < maxLineLen {
				// No complete line yet: grow the buffer and read on.
				grown := make([]byte, 2*len(s.buf))
				copy(grown, data)
				s.buf = grown
				m, atEOF, err := fill(f, s.buf[n:])
				if err != nil {
					return err
				}
				n, eof = n+m, atEOF
				continue
			}
			if end == 0 {
				end = n
			}
		}
		block := data[:end]
		s.block(block, s.lineStarts(block))
		s.ring.detach()
		if s.done || (eof && end == n) {
			return nil
		}
		left := copy(s.buf, data[end:n])
		m, atEOF, err := fill(f, s.buf[left:])
		if err != nil {
			return err
		}
		n, eof = left+m, atEOF
	}
}

// readAll reads the rest of a file into the buffer for a multiline search.
func (s *scanner) readAll(f io.Reader, n int) (int, error) {
	for {
		if n == len(s.buf) {
			if len(s.buf) >= MultilineMaxBytes {
				return n, errTooLarge
			}
			grown := make([]byte, 2*len(s.buf))
			copy(grown, s.buf[:n])
			s.buf = grown
		}
		m, eof, err := fill(f, s.buf[n:])
		n += m
		if err != nil || eof {
			return n, err
		}
	}
}

// shrink drops a buffer that grew for one large file so idle workers stay small.
func (s *scanner) shrink() {
	if len(s.buf) > 1<<20 {
		s.buf = make([]byte, readSize)
	}
}

// fill reads until buf is full or the reader is exhausted.
func fill(r io.Reader, buf []byte) (n int, eof bool, err error) {
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if errors.Is(err, io.EOF) {
			return n, true, nil
		}
		if err != nil {
			return n, false, err
		}
	}
	return n, false, nil
}

// lineStarts returns the offsets of the lines of block that match, in order. It runs the
// expression over the whole block, which is much faster than line by line, and checks a
// line on its own only when a match ran across a line break. Slicing at a line start is
// safe because the expression uses (?m): "^" and "\b" behave there as after a newline.
// In count mode it also adds the matches of each matching line to the file's count.
func (s *scanner) lineStarts(block []byte) []int {
	var starts []int
	re := s.g.re
	for pos := 0; pos < len(block); {
		loc := re.FindIndex(block[pos:])
		if loc == nil {
			break
		}
		ms, me := pos+loc[0], pos+loc[1]
		ls := pos + bytes.LastIndexByte(block[pos:ms], '\n') + 1
		le := bytes.IndexByte(block[ms:], '\n')
		if le < 0 {
			le = len(block)
		} else {
			le += ms
		}
		line := block[ls:le]
		if me <= le || re.Match(line) {
			starts = append(starts, ls)
			switch s.q.Mode {
			case FilesWithMatches:
				return starts
			case CountMatches:
				s.file.Matches += len(re.FindAllIndex(line, -1))
			}
		}
		pos = le + 1
	}
	return starts
}

// multilineStarts returns the offsets of every line touched by a match in a whole file,
// counting matches in count mode.
func (s *scanner) multilineStarts(data []byte) []int {
	n := -1
	if s.q.Mode == FilesWithMatches {
		n = 1
	}
	var starts []int
	for _, loc := range s.g.re.FindAllIndex(data, n) {
		if s.q.Mode == CountMatches {
			s.file.Matches++
		}
		last := max(loc[0], loc[1]-1)
		ls := bytes.LastIndexByte(data[:loc[0]], '\n') + 1
		for ls <= last && ls < len(data) {
			if len(starts) == 0 || starts[len(starts)-1] < ls {
				starts = append(starts, ls)
			}
			next := bytes.IndexByte(data[ls:], '\n')
			if next < 0 {
				break
			}
			ls += next + 1
		}
	}
	return starts
}

// block records the lines of one block of whole lines, given the starts of its matching
// lines, and advances the line count.
func (s *scanner) block(block []byte, starts []int) {
	switch {
	case s.q.Mode != Content:
		if len(starts) > 0 {
			s.file.units = 1
			s.done = s.q.Mode == FilesWithMatches
		}
	case !s.g.context():
		num, from := s.lineNo, 0
		for _, ls := range starts {
			num += bytes.Count(block[from:ls], []byte{'\n'})
			from = ls
			s.emit(num, lineAt(block, ls), true)
		}
	case len(starts) == 0:
		s.contextOnly(block)
	default:
		s.withContext(block, starts)
	}
	s.lineNo += bytes.Count(block, []byte{'\n'})
	if len(block) > 0 && block[len(block)-1] != '\n' {
		s.lineNo++
	}
}

// withContext walks a block line by line, emitting matches and the context around them.
func (s *scanner) withContext(block []byte, starts []int) {
	num := s.lineNo
	for pos := 0; pos < len(block); num++ {
		line := lineAt(block, pos)
		if len(starts) > 0 && starts[0] == pos {
			starts = starts[1:]
			s.ring.drain(func(r lineRef) { s.emit(r.num, r.text, false) })
			s.emit(num, line, true)
			s.after = s.q.After
		} else if s.after > 0 {
			s.emit(num, line, false)
			s.after--
		} else {
			s.ring.push(lineRef{num: num, text: line})
		}
		pos += len(line) + 1
	}
}

// contextOnly handles a block without matches: it may owe after-context to a match in
// an earlier block, and its last lines may be before-context for the next block.
func (s *scanner) contextOnly(block []byte) {
	num, pos := s.lineNo, 0
	for ; s.after > 0 && pos < len(block); num++ {
		line := lineAt(block, pos)
		s.emit(num, line, false)
		s.after--
		pos += len(line) + 1
	}
	if s.q.Before == 0 || pos >= len(block) {
		return
	}
	// Only the last few lines can become before-context: find them from the end.
	tail := block[pos:]
	cut := len(tail)
	if tail[cut-1] == '\n' {
		cut--
	}
	start := cut
	for k := 0; k < s.q.Before; k++ {
		i := bytes.LastIndexByte(tail[:cut], '\n')
		start = i + 1
		if i < 0 {
			break
		}
		cut = i
	}
	num += bytes.Count(tail[:start], []byte{'\n'})
	for p := start; p < len(tail); num++ {
		line := lineAt(tail, p)
		s.ring.push(lineRef{num: num, text: line})
		p += len(line) + 1
	}
}

// emit records one output line of the current file.
func (s *scanner) emit(num int, text []byte, match bool) {
	s.file.units++
	if len(s.file.Lines) < s.keep {
		s.file.Lines = append(s.file.Lines, Line{Num: num, Text: lineText(text), Match: match})
	}
}

// lineAt returns the line starting at offset start, without its newline.
func lineAt(block []byte, start int) []byte {
	if end := bytes.IndexByte(block[start:], '\n'); end >= 0 {
		return block[start : start+end]
	}
	return block[start:]
}

// lineRef is a line held as possible before-context.
type lineRef struct {
	num   int
	text  []byte
	owned bool // text is a copy, no longer in the read buffer
}

// lineRing keeps the last len(items) lines seen; with no room it keeps nothing.
type lineRing struct {
	items    []lineRef
	start, n int
}

func (r *lineRing) reset() { r.start, r.n = 0, 0 }

func (r *lineRing) push(l lineRef) {
	size := len(r.items)
	if size == 0 {
		return
	}
	if r.n < size {
		r.items[(r.start+r.n)%size] = l
		r.n++
		return
	}
	r.items[r.start] = l
	r.start = (r.start + 1) % size
}

func (r *lineRing) drain(fn func(lineRef)) {
	for i := 0; i < r.n; i++ {
		fn(r.items[(r.start+i)%len(r.items)])
	}
	r.reset()
}

// detach copies the held lines out of the read buffer before it is reused.
func (r *lineRing) detach() {
	for i := 0; i < r.n; i++ {
		if it := &r.items[(r.start+i)%len(r.items)]; !it.owned {
			it.text, it.owned = bytes.Clone(it.text), true
		}
	}
}

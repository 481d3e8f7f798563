package tools

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// headTail is an io.Writer that keeps the first headMax and the last tailMax bytes
// written to it and counts the rest, so a command printing gigabytes costs a fixed
// amount of memory.
type headTail struct {
	mu      sync.Mutex
	headMax int
	head    []byte
	ring    []byte // the tail; once full, start is its oldest byte
	start   int
	full    bool
	total   int64
}

func newHeadTail(headMax, tailMax int) *headTail {
	return &headTail{headMax: headMax, head: make([]byte, 0, min(headMax, 4096)), ring: make([]byte, 0, tailMax)}
}

// Write keeps what fits in the head and pushes the rest through the tail ring.
func (b *headTail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += int64(n)
	if room := b.headMax - len(b.head); room > 0 {
		take := min(room, len(p))
		b.head = append(b.head, p[:take]...)
		p = p[take:]
	}
	tailMax := cap(b.ring)
	if len(p) >= tailMax {
		b.ring = append(b.ring[:0], p[len(p)-tailMax:]...)
		b.start, b.full = 0, true
		return n, nil
	}
	for len(p) > 0 {
		if !b.full {
			take := min(tailMax-len(b.ring), len(p))
			b.ring = append(b.ring, p[:take]...)
			p = p[take:]
			b.full = len(b.ring) == tailMax
			continue
		}
		k := copy(b.ring[b.start:], p)
		b.start = (b.start + k) % tailMax
		p = p[k:]
	}
	return n, nil
}

// String returns the head, a note on how much was left out (if anything), and the tail.
// Cuts fall on character boundaries.
func (b *headTail) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	tail := make([]byte, 0, len(b.ring))
	tail = append(tail, b.ring[b.start:]...)
	tail = append(tail, b.ring[:b.start]...)
	omitted := b.total - int64(len(b.head)) - int64(len(tail))
	if omitted <= 0 {
		return string(b.head) + string(tail)
	}
	head := trimPartialRuneEnd(b.head)
	tail = trimPartialRuneStart(tail)
	omitted = b.total - int64(len(head)) - int64(len(tail))
	return fmt.Sprintf("%s\n[... %d bytes of output omitted ...]\n%s", head, omitted, tail)
}

// trimPartialRuneEnd drops an incomplete UTF-8 sequence at the end of p.
func trimPartialRuneEnd(p []byte) []byte {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				return p[:i]
			}
			break
		}
	}
	return p
}

// trimPartialRuneStart drops continuation bytes at the start of p.
func trimPartialRuneStart(p []byte) []byte {
	for i := 0; i < len(p) && i < utf8.UTFMax-1; i++ {
		if utf8.RuneStart(p[i]) {
			return p[i:]
		}
	}
	return p // not UTF-8 at all: leave it to Cap
}

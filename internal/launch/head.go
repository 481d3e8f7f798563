package launch

import (
	"bytes"
	"sync"
)

// Head keeps, in memory, the first Max bytes of what a child writes (pass it where a copy
// of its stdout or stderr goes) and counts the rest, which it drops: a chatty child never
// grows the run, and a write never fails, so the copy never stops the child. It is safe
// for concurrent use.
type Head struct {
	Max int

	mu      sync.Mutex
	buf     bytes.Buffer
	dropped int64
}

func (h *Head) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	keep := min(max(h.Max-h.buf.Len(), 0), len(p))
	h.buf.Write(p[:keep])
	h.dropped += int64(len(p) - keep)
	return len(p), nil
}

// String is what was kept.
func (h *Head) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.String()
}

// Dropped is how many bytes were written past Max.
func (h *Head) Dropped() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dropped
}

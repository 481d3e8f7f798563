package output

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/kimi-run/kimi-run/event"
)

// JSON is the NDJSON sink: one event per line, each line written with one Write call as
// soon as the event arrives. It is safe for concurrent use.
type JSON struct {
	w   io.Writer
	now func() time.Time // fills in a missing event time

	mu   sync.Mutex
	done bool  // the top-level result has been written
	err  error // first write error; nothing is written after it
}

// NewJSON returns a sink that writes NDJSON events to w. w is written directly, without a
// buffer, so every event reaches it before Emit returns.
func NewJSON(w io.Writer) *JSON {
	return &JSON{w: w, now: time.Now}
}

// Emit writes e as one line. Events after the top-level result are dropped. An event that
// cannot be encoded is replaced by a warning event naming it, never by a partial line.
func (s *JSON) Emit(e event.Event) {
	if e.Time.IsZero() {
		e.Time = s.now()
	}
	// Encode before taking the lock so concurrent emitters only serialise on the write.
	line := encodeLine(e)

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || s.err != nil {
		return
	}
	if e.Type() == event.TypeResult && e.Parent == "" {
		s.done = true
	}
	if line == nil {
		return
	}
	n, err := s.w.Write(line)
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		s.err = fmt.Errorf("write %s event: %w", e.Type(), err)
	}
}

// Err returns the first error met writing the stream, or nil. After an error no further
// events are written.
func (s *JSON) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// encodeLine returns e as one JSON line ending in a newline, or a warning line when e
// cannot be encoded, or nil when not even the warning can be.
func encodeLine(e event.Event) []byte {
	b, err := e.MarshalJSON()
	if err != nil {
		w := event.Event{
			Time:   e.Time,
			Parent: e.Parent,
			Data:   event.Warning{Message: fmt.Sprintf("output: dropped an event: %v", err)},
		}
		if b, err = w.MarshalJSON(); err != nil {
			return nil
		}
	}
	// encoding/json replaces invalid UTF-8 in strings, but a json.RawMessage payload (tool
	// arguments) is copied as it came; keep the line valid whatever the model sent.
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	return append(b, '\n')
}

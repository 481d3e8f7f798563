package model

import (
	"fmt"

	"github.com/kimi-run/kimi-run/internal/infile"
)

// DefaultMaxReplyBytes bounds one reply when Config.MaxReplyBytes is 0: far above any real
// reply (a model's largest completion budget is well under a megabyte of text), low
// enough that a stream that never ends cannot take the machine's memory.
const DefaultMaxReplyBytes = 16 << 20

// ReplyTooLargeError is a reply cut because its content, reasoning and tool arguments
// together passed the cap. It is an incomplete stream (errors.Is ErrIncompleteStream): it
// is asked again like any broken stream, and when every attempt is cut the run ends as
// after any transient failure (exit 75).
type ReplyTooLargeError struct{ Max int64 }

func (e *ReplyTooLargeError) Error() string {
	return fmt.Sprintf("the reply passed %s of content, reasoning and tool arguments (--max-reply-bytes), and was cut", infile.Size(e.Max))
}

// Unwrap makes the error an incomplete stream.
func (e *ReplyTooLargeError) Unwrap() error { return ErrIncompleteStream }

// ReplyMeter counts what a reply has brought so far: every decoder (whatever its wire
// protocol) adds each piece of content, reasoning and tool arguments it keeps, and stops
// reading when Add fails.
type ReplyMeter struct{ max, n int64 }

// NewReplyMeter bounds a reply at max bytes (DefaultMaxReplyBytes when 0).
func NewReplyMeter(max int64) *ReplyMeter {
	if max <= 0 {
		max = DefaultMaxReplyBytes
	}
	return &ReplyMeter{max: max}
}

// Add counts n more bytes of the reply.
func (m *ReplyMeter) Add(n int) error {
	m.n += int64(n)
	if m.n > m.max {
		return &ReplyTooLargeError{Max: m.max}
	}
	return nil
}

// lineMax is the longest one line of the stream may be before the reply counts as too
// large: a line carrying a whole reply within the cap, JSON-escaped, fits. The stream
// reader holds a line whole, so this bounds its memory before any decoder sees the line.
func (m *ReplyMeter) lineMax() int64 { return 2*m.max + 1<<20 }

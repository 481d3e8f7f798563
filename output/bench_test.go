package output

import (
	"io"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/event"
)

// deltaEvent is a typical streamed text piece: a few words.
var deltaEvent = event.Event{
	Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	Data: event.Text{Step: 3, Delta: "the parser now handles "},
}

func BenchmarkJSONEmitTextDelta(b *testing.B) {
	s := NewJSON(io.Discard)
	b.ReportAllocs()
	for b.Loop() {
		s.Emit(deltaEvent)
	}
}

func BenchmarkTextEmitTextDelta(b *testing.B) {
	s := NewText(io.Discard, io.Discard, TextOptions{})
	b.ReportAllocs()
	for b.Loop() {
		s.Emit(deltaEvent)
	}
}

func BenchmarkTextEmitToolCall(b *testing.B) {
	s := NewText(io.Discard, io.Discard, TextOptions{})
	call := event.Event{Time: deltaEvent.Time,
		Data: event.ToolCall{ID: "c1", Name: "Shell", Arguments: []byte(`{"command":"go test ./..."}`)}}
	res := event.Event{Time: deltaEvent.Time,
		Data: event.ToolResult{ID: "c1", Name: "Shell", Output: "ok", DurationMS: 1200}}
	b.ReportAllocs()
	for b.Loop() {
		s.Emit(call)
		s.Emit(res)
	}
}

package output

import (
	"io"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/agent"
)

// deltaEvent is a typical streamed text piece: a few words.
var deltaEvent = agent.Event{
	Type: agent.TypeText,
	Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	Data: agent.Text{Step: 3, Delta: "the parser now handles "},
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
	call := agent.Event{Type: agent.TypeToolCall, Time: deltaEvent.Time,
		Data: agent.ToolCall{ID: "c1", Name: "Shell", Arguments: []byte(`{"command":"go test ./..."}`)}}
	res := agent.Event{Type: agent.TypeToolResult, Time: deltaEvent.Time,
		Data: agent.ToolResult{ID: "c1", Name: "Shell", Output: "ok", DurationMS: 1200}}
	b.ReportAllocs()
	for b.Loop() {
		s.Emit(call)
		s.Emit(res)
	}
}

package output

import (
	"io"
	"testing"

	"github.com/kimi-run/kimi-run/event"
)

// The tally counts what the events say, subagents' included.
func TestTally(t *testing.T) {
	t.Parallel()
	ty := &Tally{Sink: NewJSON(io.Discard)}
	for _, e := range []event.Event{
		{Data: event.Init{SessionID: "s1"}},
		{Data: event.StepBegin{Step: 1}},
		{Data: event.ToolCall{ID: "a"}},
		{Data: event.Usage{InputTokens: 10, OutputTokens: 2}},
		{Parent: "a", Data: event.StepBegin{Step: 1}},
		{Parent: "a", Data: event.Usage{InputTokens: 5, OutputTokens: 1}},
	} {
		ty.Emit(e)
	}
	got := ty.Totals()
	if got.SessionID != "s1" || got.Steps != 2 || got.ToolCalls != 1 || got.Usage.InputTokens != 15 || got.Usage.OutputTokens != 3 {
		t.Fatalf("%+v", got)
	}
}

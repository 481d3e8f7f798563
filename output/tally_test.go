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

// Where names the step that runs last, a subagent's and the compaction included, for a
// replay's divergence.
func TestTallyWhere(t *testing.T) {
	t.Parallel()
	ty := &Tally{Sink: NewJSON(io.Discard)}
	for _, step := range []struct {
		e    event.Event
		want string
	}{
		{event.Event{Data: event.Init{SessionID: "s1"}}, ""},
		{event.Event{Data: event.StepBegin{Turn: 1, Step: 2}}, "step 2 of turn 1"},
		{event.Event{Data: event.ToolCall{ID: "a"}}, "step 2 of turn 1"},
		{event.Event{Parent: "a", Data: event.StepBegin{Turn: 1, Step: 1}}, "step 1 of turn 1 of the subagent of tool call a"},
		{event.Event{Data: event.CompactionBegin{}}, "the compaction"},
	} {
		ty.Emit(step.e)
		if got := ty.Where(); got != step.want {
			t.Errorf("after %T: Where = %q, want %q", step.e.Data, got, step.want)
		}
	}
}

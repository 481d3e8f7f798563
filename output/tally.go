package output

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/kimi-run/kimi-run/event"
)

// Tally passes every event on to Sink and counts what they say the run did: the session,
// the model calls, the tool calls (by tool), the refused calls and the tokens. A result
// written while the run is stuck carries them (the agent's own counters belong to the
// goroutine that is), and a replay's divergence names the step it happened in (Where).
type Tally struct {
	Sink
	mu  sync.Mutex
	res event.Result
	at  event.Event // the last StepBegin or CompactionBegin
}

// Emit counts e and passes it on.
func (t *Tally) Emit(e event.Event) {
	t.mu.Lock()
	switch d := e.Payload().(type) {
	case event.Init:
		if e.Parent == "" {
			t.res.SessionID = d.SessionID
		}
	case event.StepBegin:
		t.res.Steps++
		t.at = e
	case event.CompactionBegin:
		t.at = e
	case event.ToolCall:
		t.res.ToolCalls++
		if t.res.ToolCallsByTool == nil {
			t.res.ToolCallsByTool = map[string]int{}
		}
		t.res.ToolCallsByTool[d.Name]++
	case event.ToolDenied:
		t.res.ToolDenials++
		t.res.Denials = append(t.res.Denials, event.Denial{ID: d.ID, Name: d.Name, Source: d.Source, Rule: d.Rule,
			Message: d.Message, ParentToolCallID: e.Parent})
	case event.Usage:
		u := &t.res.Usage
		u.InputTokens += d.InputTokens
		u.OutputTokens += d.OutputTokens
		u.CachedTokens += d.CachedTokens
		u.ReasoningTokens += d.ReasoningTokens
		u.CacheWriteTokens += d.CacheWriteTokens
	}
	t.mu.Unlock()
	t.Sink.Emit(e)
}

// Totals is a result holding what the events said so far.
func (t *Tally) Totals() event.Result {
	if t == nil {
		return event.Result{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	res := t.res
	res.ToolCallsByTool = maps.Clone(t.res.ToolCallsByTool)
	res.Denials = slices.Clone(t.res.Denials)
	return res
}

// Where names the step that is running: "step 2 of turn 1" or "the compaction", "of the
// subagent of tool call ID" added in a subagent; "" before the first step.
func (t *Tally) Where() string {
	t.mu.Lock()
	e := t.at
	t.mu.Unlock()
	var at string
	switch d := e.Payload().(type) {
	case event.StepBegin:
		at = fmt.Sprintf("step %d of turn %d", d.Step, d.Turn)
	case event.CompactionBegin:
		at = "the compaction"
	default:
		return ""
	}
	if e.Parent != "" {
		at += " of the subagent of tool call " + e.Parent
	}
	return at
}

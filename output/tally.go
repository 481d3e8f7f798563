package output

import (
	"maps"
	"slices"
	"sync"

	"github.com/kimi-run/kimi-run/event"
)

// Tally passes every event on to Sink and counts what they say the run did: the session,
// the model calls, the tool calls (by tool), the refused calls and the tokens. A result
// written while the run is stuck carries them (the agent's own counters belong to the
// goroutine that is).
type Tally struct {
	Sink
	mu  sync.Mutex
	res event.Result
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

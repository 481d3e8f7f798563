package run

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scrub"
	"github.com/kimi-run/kimi-run/output"
)

// tally passes every event on and counts what they say the run did: the session, the
// model calls, the tool calls (by tool), the refused calls and the tokens. The stopper's result carries them when it
// has to write the result while the run is stuck (the agent's own counters belong to the
// goroutine that is).
type tally struct {
	output.Sink
	mu  sync.Mutex
	res event.Result
}

// Emit counts e and passes it on.
func (t *tally) Emit(e event.Event) {
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

// totals is a result holding what the events said so far.
func (t *tally) totals() event.Result {
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

// renderResult writes the result for v, with what res holds (session, totals, duration), as
// the output format f asks for would: the bytes for stdout and for stderr, scrubbed of the
// secrets. It is the stopper's last word, written when the run could not write its own.
func renderResult(f *config.Flags, o config.Output, secrets *scrub.Set, v verdict, res event.Result) (stdout, stderr []byte) {
	res.Status, res.TerminalReason, res.ExitCode, res.Error = "error", v.reason, int(v.code), v.err
	if v.code == ExitOK {
		res.Status = "success"
	}
	var out, errOut bytes.Buffer
	if o.NDJSON() && res.Error != nil {
		// As finish does: stdout stays NDJSON, a person reading the log still sees why.
		fmt.Fprintf(&errOut, "kimi-run: %s\n", res.Error.Message)
	}
	formatSink(f, o, &out, &errOut, false).Emit(event.Event{Time: time.Now(), Data: res})
	if secrets == nil {
		return out.Bytes(), errOut.Bytes()
	}
	return secrets.Bytes(out.Bytes()), secrets.Bytes(errOut.Bytes())
}

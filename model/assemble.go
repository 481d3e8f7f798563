package model

import (
	"fmt"
	"strings"
	"sync/atomic"

	openai "github.com/sashabaranov/go-openai"
)

// assembler rebuilds tool calls from streamed deltas. It tolerates servers that stray from
// the OpenAI format: deltas without an index, a first index above 0, an index reused with a
// new id, names and arguments split over many chunks.
type assembler struct {
	calls   []*pending
	usedIDs map[string]bool
	byIndex map[int]*pending
	// newID names calls the server sent without an id.
	newID func() string
	// done is called once per call when it is complete.
	done func(CallSpec)
}

type pending struct {
	id, name   string
	args       strings.Builder
	dispatched bool
	named      bool // id settled and unique
}

// CallIDs makes up the ids of the tool calls a server sent without one: Prefix ("call_"
// when empty) and a number counting up in the client.
type CallIDs struct {
	Prefix string
	n      atomic.Int64
}

// New returns the next id.
func (c *CallIDs) New() string { return fmt.Sprintf("%s%d", FirstSet(c.Prefix, "call_"), c.n.Add(1)) }

func newAssembler(newID func() string, done func(CallSpec)) *assembler {
	return &assembler{byIndex: map[int]*pending{}, usedIDs: map[string]bool{}, newID: newID, done: done}
}

// add folds one chunk's tool-call deltas in.
func (a *assembler) add(deltas []openai.ToolCall) {
	for _, d := range deltas {
		slot := a.slotFor(d)
		if d.ID != "" && slot.id == "" {
			slot.id = d.ID
		}
		if n := d.Function.Name; n != "" && n != slot.name {
			slot.name += n
		}
		slot.args.WriteString(d.Function.Arguments)
	}
}

func (a *assembler) slotFor(d openai.ToolCall) *pending {
	var last *pending
	if len(a.calls) > 0 {
		last = a.calls[len(a.calls)-1]
	}
	if d.Index != nil {
		slot := a.byIndex[*d.Index]
		if slot != nil && !(d.ID != "" && slot.id != "" && d.ID != slot.id) {
			return slot
		}
		slot = a.open()
		a.byIndex[*d.Index] = slot
		return slot
	}
	// No index: a delta continues the latest call unless it clearly starts a new one.
	if last == nil ||
		(d.ID != "" && last.id != "" && d.ID != last.id) ||
		(d.ID == "" && d.Function.Name != "" && last.name != "" && last.args.Len() > 0) {
		return a.open()
	}
	return last
}

// open starts a new call; the previous one is complete once a later one begins.
func (a *assembler) open() *pending {
	if n := len(a.calls); n > 0 {
		a.dispatch(a.calls[n-1], false)
	}
	p := &pending{}
	a.calls = append(a.calls, p)
	return p
}

// dispatch hands a call to done. Before the stream ends, a call whose arguments are not yet
// a JSON object waits: some servers interleave calls.
func (a *assembler) dispatch(p *pending, final bool) {
	if p.dispatched || a.done == nil {
		return
	}
	if !final {
		if p.name == "" {
			return
		}
		if _, ok := ParseArgs(p.args.String()); !ok {
			return
		}
	}
	p.dispatched = true
	a.done(a.spec(p))
}

func (a *assembler) spec(p *pending) CallSpec {
	if !p.named {
		// Ids must be unique within a reply: results are matched to calls by id.
		if p.id == "" || a.usedIDs[p.id] {
			p.id = a.newID()
		}
		a.usedIDs[p.id] = true
		p.named = true
	}
	return CallSpec{ID: p.id, Name: p.name, Arguments: p.args.String()}
}

// finish completes every call, in order, and returns them all.
func (a *assembler) finish() []CallSpec {
	out := make([]CallSpec, 0, len(a.calls))
	for _, p := range a.calls {
		a.dispatch(p, true)
		out = append(out, a.spec(p))
	}
	return out
}

// dispatched returns the calls already handed to done, for a stream that broke off.
func (a *assembler) dispatchedCalls() []CallSpec {
	var out []CallSpec
	for _, p := range a.calls {
		if p.dispatched {
			out = append(out, a.spec(p))
		}
	}
	return out
}

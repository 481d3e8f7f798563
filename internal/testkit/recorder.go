package testkit

import (
	"context"
	"sync"

	"github.com/kimi-run/kimi-run/event"
)

// Recorder is an event.Sink that keeps every event, safe for concurrent use. Tests can
// wait for an event to arrive instead of sleeping.
type Recorder struct {
	mu      sync.Mutex
	events  []event.Event
	changed chan struct{} // closed and replaced on every Emit
}

// Emit records e.
func (r *Recorder) Emit(e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}

// Err reports no error, so a Recorder can stand in for an output sink.
func (r *Recorder) Err() error { return nil }

// Events returns a copy of the events recorded so far, in order.
func (r *Recorder) Events() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Event(nil), r.events...)
}

// Of returns the events of one type recorded so far, in order.
func (r *Recorder) Of(t event.Type) []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []event.Event
	for _, e := range r.events {
		if e.Type() == t {
			out = append(out, e)
		}
	}
	return out
}

// WaitFor blocks until an event for which match holds has been recorded (before or during
// the call) and returns it; ok is false when ctx ends first.
func (r *Recorder) WaitFor(ctx context.Context, match func(event.Event) bool) (e event.Event, ok bool) {
	seen := 0
	for {
		r.mu.Lock()
		for ; seen < len(r.events); seen++ {
			if match(r.events[seen]) {
				e := r.events[seen]
				r.mu.Unlock()
				return e, true
			}
		}
		if r.changed == nil {
			r.changed = make(chan struct{})
		}
		changed := r.changed
		r.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return event.Event{}, false
		}
	}
}

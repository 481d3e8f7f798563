package testkit

import (
	"context"
	"testing"

	"github.com/kimi-run/kimi-run/event"
)

func TestRecorderWaitFor(t *testing.T) {
	var r Recorder
	r.Emit(event.Event{Data: event.Text{}})
	go func() {
		r.Emit(event.Event{Data: event.StepBegin{}})
		r.Emit(event.Event{Data: event.Usage{}})
	}()
	e, ok := r.WaitFor(t.Context(), func(e event.Event) bool { return e.Type() == event.TypeUsage })
	if !ok || e.Type() != event.TypeUsage {
		t.Fatalf("WaitFor = %+v, %v", e, ok)
	}
	if got := r.Of(event.TypeText); len(got) != 1 {
		t.Errorf("Of(text) = %d events", len(got))
	}
	if n := len(r.Events()); n != 3 {
		t.Errorf("%d events, want 3", n)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, ok := r.WaitFor(ctx, func(e event.Event) bool { return e.Type() == event.TypeResult }); ok {
		t.Error("WaitFor found an event that was never emitted")
	}
}

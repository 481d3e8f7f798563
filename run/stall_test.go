package run

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

func TestStallWatch(t *testing.T) {
	rec := &testkit.Recorder{}
	w := newStallWatch(rec, 20*time.Millisecond, time.Minute, nil)
	// A model call in flight that sends nothing: one notice.
	w.Emit(event.Event{Data: event.StepBegin{Step: 1}})
	wait, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	e, ok := rec.WaitFor(wait, func(e event.Event) bool { return e.Type() == event.TypeWarning })
	if !ok {
		t.Fatal("no notice for a silent model call")
	}
	if msg, want := e.Data.(event.Warning).Message, "no data from the model"; !strings.HasPrefix(msg, want) {
		t.Errorf("notice = %q", msg)
	}
	// A retry's backoff wait is expected silence; the end of the run stops the watch.
	w.Emit(event.Event{Data: event.Retry{Step: 1, Attempt: 1, DelayMS: 600_000}})
	time.Sleep(100 * time.Millisecond) // five notice periods, all inside the backoff
	w.Emit(event.Event{Data: event.Result{Status: "error"}})
	w.Emit(event.Event{Data: event.Warning{Message: "after the result"}})
	if ws := rec.Of(event.TypeWarning); len(ws) != 1 {
		t.Errorf("%d warnings, want only the first notice: %+v", len(ws), ws)
	}
	evs := rec.Events()
	if last := evs[len(evs)-1]; last.Type() != event.TypeResult {
		t.Errorf("last event = %s, want the result", last.Type())
	}
}

package run

import (
	"sync"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/event"
)

// recordSink keeps events; a channel reports warnings as they come.
type recordSink struct {
	mu       sync.Mutex
	events   []event.Event
	warnings chan string
}

func (s *recordSink) Emit(e event.Event) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
	if w, ok := e.Data.(event.Warning); ok {
		s.warnings <- w.Message
	}
}

func (s *recordSink) Err() error { return nil }

func TestStallWatch(t *testing.T) {
	rec := &recordSink{warnings: make(chan string, 10)}
	w := newStallWatch(rec, 20*time.Millisecond, time.Minute, nil)
	// A model call in flight that sends nothing: one notice.
	w.Emit(event.Event{Type: event.TypeStepBegin, Data: event.StepBegin{Step: 1}})
	select {
	case msg := <-rec.warnings:
		if want := "no data from the model"; len(msg) < len(want) || msg[:len(want)] != want {
			t.Errorf("notice = %q", msg)
		}
	case <-time.After(time.Minute):
		t.Fatal("no notice for a silent model call")
	}
	// A retry's backoff wait is expected silence; the end of the run stops the watch.
	w.Emit(event.Event{Type: event.TypeRetry, Data: event.Retry{Step: 1, Attempt: 1, DelayMS: 600_000}})
	time.Sleep(100 * time.Millisecond) // five notice periods, all inside the backoff
	w.Emit(event.Event{Type: event.TypeResult, Data: event.Result{Status: "error"}})
	w.Emit(event.Event{Type: event.TypeWarning, Data: event.Warning{Message: "after the result"}})
	select {
	case msg := <-rec.warnings:
		t.Errorf("unexpected warning %q", msg)
	default:
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if last := rec.events[len(rec.events)-1]; last.Type != event.TypeResult {
		t.Errorf("last event = %s, want the result", last.Type)
	}
}

package output

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/event"
)

// stallWatch passes events to a sink and notices when a model call has sent nothing for a
// while: a stalled server holds a job for up to --stream-idle-timeout per attempt (2 minutes
// by default, 3 attempts), and a CI log should say what the run is waiting for long before.
// A model call is in flight from step_begin (or compaction_begin, or the end of a retry's
// wait) until its usage event (or compaction_end, turn_end); any event of the run counts as
// a sign of life. Running tools are not a stall.
type stallWatch struct {
	inner  Sink
	after  time.Duration // silence before the notice
	idle   time.Duration // --stream-idle-timeout, for the notice's words
	stderr io.Writer     // where the notice also goes in stream-json mode; nil in text mode

	mu       sync.Mutex
	timer    *time.Timer
	inFlight map[string]int // model calls in flight, by parent tool call ("" for the run's agent)
	resumeAt time.Time      // the end of a retry's backoff wait: silence before it is expected
	last     time.Time      // the last sign of life
	noticed  bool           // the notice for this silence was given
	stopped  bool
}

// NewStallWatch wraps inner; after <= 0 turns the notice off.
func NewStallWatch(inner Sink, after, idle time.Duration, stderr io.Writer) Sink {
	if after <= 0 {
		return inner
	}
	w := &stallWatch{inner: inner, after: after, idle: idle, stderr: stderr, inFlight: map[string]int{}}
	w.timer = time.AfterFunc(time.Hour, w.fire)
	w.timer.Stop()
	return w
}

// Emit records the event as a sign of life, updates what is in flight and passes it on.
func (w *stallWatch) Emit(e event.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	now := time.Now()
	w.last, w.noticed = now, false
	// Payloads are values: the emitters never send pointers.
	switch d := e.Data.(type) {
	case event.StepBegin, event.CompactionBegin:
		w.inFlight[e.Parent]++
	case event.Usage, event.CompactionEnd:
		w.done(e.Parent)
	case event.TurnEnd:
		delete(w.inFlight, e.Parent)
	case event.Retry:
		w.resumeAt = now.Add(time.Duration(d.DelayMS) * time.Millisecond)
	}
	if e.Type() == event.TypeResult && e.Parent == "" {
		w.stopped = true
		w.timer.Stop()
	} else {
		w.arm(now)
	}
	w.inner.Emit(e)
}

func (w *stallWatch) done(parent string) {
	if w.inFlight[parent] <= 1 {
		delete(w.inFlight, parent)
		return
	}
	w.inFlight[parent]--
}

// arm sets the timer for the next possible notice. Called with mu held.
func (w *stallWatch) arm(now time.Time) {
	if len(w.inFlight) == 0 {
		w.timer.Stop()
		return
	}
	from := w.last
	if w.resumeAt.After(from) {
		from = w.resumeAt
	}
	w.timer.Reset(from.Add(w.after).Sub(now))
}

// fire gives the notice if a model call is still in flight and silent.
func (w *stallWatch) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.noticed || len(w.inFlight) == 0 {
		return
	}
	now := time.Now()
	from := w.last
	if w.resumeAt.After(from) {
		from = w.resumeAt
	}
	if silent := now.Sub(from); silent < w.after {
		w.timer.Reset(w.after - silent)
		return
	}
	w.noticed = true
	silent := now.Sub(from).Round(time.Second)
	if silent == 0 {
		silent = now.Sub(from).Round(time.Millisecond)
	}
	msg := fmt.Sprintf("no data from the model for %s; still waiting (a stream silent for %s is abandoned and retried, see --stream-idle-timeout; --timeout bounds the whole run)",
		silent, w.idle)
	if w.stderr != nil {
		fmt.Fprintf(w.stderr, "kimi-run: %s\n", msg)
	}
	w.inner.Emit(event.Event{Time: now, Data: event.Warning{Message: msg}})
}

// Err reports the wrapped sink's error.
func (w *stallWatch) Err() error { return w.inner.Err() }

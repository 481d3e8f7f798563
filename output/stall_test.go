package output

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// The stall notice runs on the fake clock of a synctest bubble: each step sleeps through
// exactly the silence it names and the assertions hold to the second, with no real waiting.

// stallNotice is the start of the notice's words.
const stallNotice = "no data from the model"

// wakeAfter lets d of fake time pass and then lets the watch's timer run.
func wakeAfter(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

func notices(rec *testkit.Recorder) []string {
	var out []string
	for _, e := range rec.Of(event.TypeWarning) {
		if msg := e.Data.(event.Warning).Message; strings.HasPrefix(msg, stallNotice) {
			out = append(out, msg)
		}
	}
	return out
}

func emitData(w interface{ Emit(event.Event) }, parent string, data event.Payload) {
	w.Emit(event.Event{Parent: parent, Data: data})
}

func TestStallWatchNoticesASilentModelCall(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		rec := &testkit.Recorder{}
		w := NewStallWatch(rec, 30*time.Second, 2*time.Minute, nil)
		emitData(w, "", event.StepBegin{Turn: 1, Step: 1})
		wakeAfter(30*time.Second - time.Nanosecond)
		if n := notices(rec); len(n) != 0 {
			t.Fatalf("notice before 30s of silence: %q", n)
		}
		wakeAfter(time.Nanosecond)
		n := notices(rec)
		if len(n) != 1 {
			t.Fatalf("%d notices after 30s of silence, want 1", len(n))
		}
		want := "no data from the model for 30s; still waiting (a stream silent for 2m0s is abandoned and retried, see --stream-idle-timeout; --timeout bounds the whole run)"
		if n[0] != want {
			t.Errorf("notice = %q\nwant     %q", n[0], want)
		}
		// One notice per silence, however long it lasts.
		wakeAfter(time.Hour)
		if n := notices(rec); len(n) != 1 {
			t.Errorf("%d notices after an hour more, want still 1", len(n))
		}
		// A sign of life starts a new silence, which is noticed again.
		emitData(w, "", event.Text{Step: 1, Delta: "hi"})
		wakeAfter(30 * time.Second)
		if n := notices(rec); len(n) != 2 {
			t.Errorf("%d notices after a second silence, want 2", len(n))
		}
	})
}

func TestStallWatchQuietCases(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		run  func(w interface{ Emit(event.Event) })
	}{
		{"signs of life keep coming", func(w interface{ Emit(event.Event) }) {
			emitData(w, "", event.StepBegin{Turn: 1, Step: 1})
			for range 10 {
				wakeAfter(29 * time.Second)
				emitData(w, "", event.Thinking{Step: 1, Delta: "hm"})
			}
		}},
		{"a tool runs after the model call ended", func(w interface{ Emit(event.Event) }) {
			emitData(w, "", event.StepBegin{Turn: 1, Step: 1})
			emitData(w, "", event.ToolCall{Step: 1, ID: "c", Name: "Shell"})
			emitData(w, "", event.Usage{Step: 1})
			wakeAfter(time.Hour)
		}},
		{"the turn ended", func(w interface{ Emit(event.Event) }) {
			emitData(w, "", event.StepBegin{Turn: 1, Step: 1})
			emitData(w, "", event.TurnEnd{Turn: 1, Steps: 1})
			wakeAfter(time.Hour)
		}},
		{"a retry's backoff wait", func(w interface{ Emit(event.Event) }) {
			emitData(w, "", event.StepBegin{Turn: 1, Step: 1})
			emitData(w, "", event.Retry{Step: 1, Attempt: 1, DelayMS: 600_000})
			wakeAfter(10*time.Minute + 29*time.Second) // the wait, then less than the notice period
		}},
		{"the run's result stops the watch", func(w interface{ Emit(event.Event) }) {
			emitData(w, "", event.StepBegin{Turn: 1, Step: 1})
			emitData(w, "", event.Result{Status: "error"})
			wakeAfter(time.Hour)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &testkit.Recorder{}
				tt.run(NewStallWatch(rec, 30*time.Second, 2*time.Minute, nil))
				if n := notices(rec); len(n) != 0 {
					t.Errorf("notices %q, want none", n)
				}
			})
		})
	}
}

func TestStallWatchAfterABackoff(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		rec := &testkit.Recorder{}
		w := NewStallWatch(rec, 30*time.Second, 2*time.Minute, nil)
		emitData(w, "", event.StepBegin{Turn: 1, Step: 1})
		emitData(w, "", event.Retry{Step: 1, Attempt: 1, DelayMS: 60_000})
		// The silence counts from the end of the wait: notice 60 s + 30 s after the retry.
		wakeAfter(90*time.Second - time.Nanosecond)
		if n := notices(rec); len(n) != 0 {
			t.Fatalf("notice during the backoff or too soon after it: %q", n)
		}
		wakeAfter(time.Nanosecond)
		if n := notices(rec); len(n) != 1 || !strings.HasPrefix(n[0], stallNotice+" for 30s;") {
			t.Errorf("notices %q, want one for 30s of silence after the wait", n)
		}
	})
}

func TestStallWatchSubagentCalls(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		rec := &testkit.Recorder{}
		w := NewStallWatch(rec, 30*time.Second, 2*time.Minute, nil)
		// The run's model call asked for a subagent, whose own model call now hangs.
		emitData(w, "", event.StepBegin{Turn: 1, Step: 1})
		emitData(w, "", event.Usage{Step: 1})
		emitData(w, "call_1", event.StepBegin{Turn: 1, Step: 1})
		wakeAfter(30 * time.Second)
		if n := notices(rec); len(n) != 1 {
			t.Errorf("%d notices for a silent subagent call, want 1", len(n))
		}
		// Its turn ends: nothing is in flight any more.
		emitData(w, "call_1", event.TurnEnd{Turn: 1, Steps: 1})
		wakeAfter(time.Hour)
		if n := notices(rec); len(n) != 1 {
			t.Errorf("%d notices after the subagent's turn ended, want still 1", len(n))
		}
	})
}

func TestStallWatchEndsWithTheResult(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		rec := &testkit.Recorder{}
		var stderr strings.Builder
		w := NewStallWatch(rec, 30*time.Second, 2*time.Minute, &stderr)
		emitData(w, "", event.StepBegin{Turn: 1, Step: 1})
		wakeAfter(45 * time.Second)
		// In stream-json mode the notice also goes to stderr, for a human reading the log.
		if got := stderr.String(); !strings.HasPrefix(got, "kimi-run: "+stallNotice+" for 30s;") || !strings.HasSuffix(got, "\n") {
			t.Errorf("stderr = %q", got)
		}
		emitData(w, "", event.Result{Status: "error"})
		emitData(w, "", event.Warning{Message: "after the result"})
		evs := rec.Events()
		if last := evs[len(evs)-1]; last.Type() != event.TypeResult {
			t.Errorf("last event = %s, want the result: nothing passes after it", last.Type())
		}
	})
}

func TestStallWatchOff(t *testing.T) {
	t.Parallel()
	rec := &testkit.Recorder{}
	if w := NewStallWatch(rec, 0, time.Minute, nil); w != rec {
		t.Errorf("--stall-notice 0 still wraps the sink")
	}
}

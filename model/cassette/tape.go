package cassette

import (
	"context"
	"fmt"
	"net/http"
)

// Tape is a run's --record or --replay: the HTTP layer under the model client. With
// neither it does nothing.
type Tape struct {
	// Record is the file --record writes; Replay the cassette --replay read.
	Record string
	Replay *Cassette
	// Mode is --replay-mode (strict, lenient, exact); Speed is --replay-speed.
	Mode  string
	Speed float64

	rec    *Recorder
	player *Replayer
	stop   context.CancelCauseFunc
}

// Replaying reports whether model calls are answered from a cassette.
func (t *Tape) Replaying() bool { return t.Replay != nil }

// Bind returns the run's context; a replay that diverges cancels it with a *ReplayError
// as the cause, so the agent stops instead of retrying.
func (t *Tape) Bind(ctx context.Context) context.Context {
	if !t.Replaying() {
		return ctx
	}
	ctx, t.stop = context.WithCancelCause(ctx)
	return ctx
}

// Client returns the HTTP client for the model: a Recorder writing h around next, a
// Replayer reading the requests with read in place of the network, or nil for the
// default. secrets are kept out of a recording and out of a replay's comparison; where
// names the step that is running, for a divergence.
func (t *Tape) Client(h Header, next http.RoundTripper, read Reader, secrets []string, where func() string) (*http.Client, error) {
	switch {
	case t.Record != "":
		rec, err := Create(t.Record, h, next, secrets)
		if err != nil {
			return nil, err
		}
		t.rec = rec
		return &http.Client{Transport: rec}, nil
	case t.Replaying():
		p := NewReplayer(t.Replay)
		p.Read, p.Lenient, p.Exact, p.Speed = read, t.Mode == "lenient", t.Mode == "exact", t.Speed
		p.WorkDir, p.Secrets = h.WorkDir, secrets
		p.OnDivergence = func(d *Divergence) { t.stop(&ReplayError{Where: where(), Divergence: d}) }
		t.player = p
		return &http.Client{Transport: p}, nil
	}
	return nil, nil
}

// Close closes the recording; it may be called again, and reports the same error.
func (t *Tape) Close() error {
	if t.rec == nil {
		return nil
	}
	return t.rec.Close()
}

// Unplayed is a *ReplayError when a strict or exact replay left recorded calls unplayed.
func (t *Tape) Unplayed() error {
	if t.player == nil || t.player.Lenient {
		return nil
	}
	if n := t.player.Unused(); n > 0 {
		return &ReplayError{Unused: n, Total: t.player.Len()}
	}
	return nil
}

// Waits scales the retry waits a run announces to those a replay at speed really waits
// (none at speed 0); nil when the run does not replay or replays at speed 1.
func Waits(replay bool, speed float64) func(int64) int64 {
	if !replay || speed == 1 {
		return nil
	}
	return func(ms int64) int64 {
		if speed <= 0 {
			return 0
		}
		return int64(float64(ms) / speed)
	}
}

// ReplayError stops a replay: a request that differs from the recording, more calls than
// recorded, or (strict) fewer.
type ReplayError struct {
	// Where is the step the divergence happened in; Divergence is nil when the run ended
	// with Unused of the cassette's Total calls unplayed.
	Where         string
	Divergence    *Divergence
	Unused, Total int
}

func (e *ReplayError) Error() string {
	if e.Divergence == nil {
		return fmt.Sprintf("replay: the run ended with %d of the cassette's %d model calls unplayed (--replay-mode lenient allows that)", e.Unused, e.Total)
	}
	at := ""
	if e.Where != "" {
		at = " at " + e.Where
	}
	d := e.Divergence
	if d.Recorded == 0 {
		return fmt.Sprintf("replay diverged%s (model call %d): %s; record the run again", at, d.Call, d.Detail)
	}
	// Say how to relax the comparison, since a test author meets this first.
	relax := "if the difference is expected, --replay-mode lenient answers in recorded order whatever is asked"
	if d.ToolOutput {
		relax = "a tool's output differs: --replay-mode strict (the default) leaves tool output out, lenient compares nothing"
	}
	return fmt.Sprintf("replay diverged%s (model call %d, recorded call %d): %s (%s)", at, d.Call, d.Recorded, d.Detail, relax)
}

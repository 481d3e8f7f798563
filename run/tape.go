package run

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/model/cassette"
	"github.com/kimi-run/kimi-run/model/protocols"
	"github.com/kimi-run/kimi-run/output"
)

// tape is the run's --record or --replay: the HTTP layer under the model client.
type tape struct {
	flags  *config.Flags
	replay *cassette.Cassette
	rec    *cassette.Recorder
	player *cassette.Replayer
	stop   context.CancelCauseFunc
	steps  *stepTracker
}

// newTape is the run's tape; config.Resolve checked the flags and read the replay's
// cassette.
func newTape(s *config.Settings) *tape {
	return &tape{flags: &s.Flags, replay: s.Replay}
}

// replayWaits scales the retry waits text progress announces to those a replay really
// waits (none at --replay-speed 0); nil when not replaying.
func replayWaits(f *config.Flags) func(int64) int64 {
	if f.Replay == "" || f.ReplaySpeed == 1 {
		return nil
	}
	speed := f.ReplaySpeed
	return func(ms int64) int64 {
		if speed <= 0 {
			return 0
		}
		return int64(float64(ms) / speed)
	}
}

// replaying reports whether model calls are answered from a cassette.
func (t *tape) replaying() bool { return t.replay != nil }

// bind returns the run's context; a replay that diverges cancels it with the divergence
// as the cause, so the agent stops instead of retrying.
func (t *tape) bind(ctx context.Context) context.Context {
	if !t.replaying() {
		return ctx
	}
	ctx, t.stop = context.WithCancelCause(ctx)
	return ctx
}

// track wraps the run's sink so that a divergence can name the step it happened in.
func (t *tape) track(s output.Sink) output.Sink {
	if !t.replaying() {
		return s
	}
	t.steps = &stepTracker{Sink: s}
	return t.steps
}

// client returns the HTTP client for the model: a recorder around the network, a
// replayer instead of it, or nil for the default. secrets are kept out of a recording.
func (t *tape) client(s *config.Settings, secrets []string, version string) (*http.Client, error) {
	e := s.Endpoint
	for _, v := range e.Headers {
		secrets = append(secrets, v)
	}
	switch {
	case t.flags.Record != "":
		rec, err := cassette.Create(t.flags.Record, cassette.Header{
			KimiRun: version, Model: e.Model, BaseURL: config.RedactURL(e.BaseURL), WorkDir: s.WorkDir, Provider: e.Protocol,
		}, model.NewTransport(t.flags.StreamIdleTimeout), secrets)
		if err != nil {
			return nil, usagef("--record: %w", err)
		}
		t.rec = rec
		return &http.Client{Transport: rec}, nil
	case t.replaying():
		p := cassette.NewReplayer(t.replay)
		// The recorded provider's protocol (config put it in the endpoint) reads the bodies.
		if proto, ok := protocols.Lookup(e.Protocol); ok {
			p.Read = proto.Read
		}
		p.Lenient = t.flags.ReplayMode == "lenient"
		p.Exact = t.flags.ReplayMode == "exact"
		p.Speed = t.flags.ReplaySpeed
		p.WorkDir = s.WorkDir
		p.Secrets = secrets
		p.OnDivergence = func(d *cassette.Divergence) { t.stop(&replayError{where: t.steps.where(), div: d}) }
		t.player = p
		return &http.Client{Transport: p}, nil
	}
	return nil, nil
}

// adjust sets a replay's retry waits to the replay's speed and, when progress is shown,
// says on stderr that the model's replies are recorded ones.
func (t *tape) adjust(p *agent.RetryPolicy, stderr io.Writer, progress bool) {
	if !t.replaying() {
		return
	}
	p.Timer = cassette.Timer{Speed: t.flags.ReplaySpeed}
	if progress {
		fmt.Fprintf(stderr, "kimi-run: replaying %s: the model's replies come from the cassette, the tools run for real\n", t.flags.Replay)
	}
}

// finish closes the recording and, in a strict replay, fails a run that left recorded
// calls unplayed. Warnings are emitted before the result.
func (t *tape) finish(r *runState, out outcome, err error) error {
	if t.rec != nil {
		if cerr := t.rec.Close(); cerr != nil {
			r.emit(event.Warning{Message: fmt.Sprintf("the cassette %s is incomplete: %v", t.flags.Record, cerr)})
		}
	}
	// Only a run that would succeed is failed for it: one that stopped early (a step
	// limit, a transient failure) keeps its own exit code.
	if t.player != nil && err == nil && !t.player.Lenient && judge(out, nil, nil).code == ExitOK {
		if n := t.player.Unused(); n > 0 {
			return &replayError{unused: n, total: t.player.Len()}
		}
	}
	return err
}

// close releases the recording on every path; finish reports its errors.
func (t *tape) close() {
	if t.rec != nil {
		t.rec.Close()
	}
}

// replayError stops a replay: a request that differs from the recording, more calls
// than recorded, or (strict) fewer.
type replayError struct {
	where         string
	div           *cassette.Divergence
	unused, total int
}

func (e *replayError) Error() string {
	if e.div == nil {
		return fmt.Sprintf("replay: the run ended with %d of the cassette's %d model calls unplayed (--replay-mode lenient allows that)", e.unused, e.total)
	}
	at := ""
	if e.where != "" {
		at = " at " + e.where
	}
	d := e.div
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

// stepTracker remembers the step that is running, to name it in a divergence.
type stepTracker struct {
	output.Sink
	mu   sync.Mutex
	last string
}

func (s *stepTracker) Emit(e event.Event) {
	var at string
	switch d := e.Data.(type) {
	case event.StepBegin:
		at = fmt.Sprintf("step %d of turn %d", d.Step, d.Turn)
	case event.CompactionBegin:
		at = "the compaction"
	}
	if at != "" {
		if e.Parent != "" {
			at += " of the subagent of tool call " + e.Parent
		}
		s.mu.Lock()
		s.last = at
		s.mu.Unlock()
	}
	s.Sink.Emit(e)
}

func (s *stepTracker) where() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

package ralph

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// reply is one scripted turn.
type reply struct {
	text  string
	stop  event.StopReason // "" means completed
	steps int              // 0 means 1
	tools int
	err   error
}

// errScriptDone means a test ran more turns than it scripted.
var errScriptDone = errors.New("script has no more replies")

// script is a fake agent: it answers turns from a list and records turns, marks and
// rewinds in one log so that tests can check their order.
type script struct {
	replies []reply
	specs   []event.TurnSpec
	log     []string
	marks   int
	failAt  string // "mark" or "rewind" makes that call fail
}

func (s *script) Turn(_ context.Context, spec event.TurnSpec) (event.TurnOutcome, error) {
	s.specs = append(s.specs, spec)
	s.log = append(s.log, fmt.Sprintf("turn %s/%d", spec.Node, spec.Iteration))
	if len(s.specs) > len(s.replies) {
		return event.TurnOutcome{}, errScriptDone
	}
	r := s.replies[len(s.specs)-1]
	if r.stop == "" {
		r.stop = event.StopCompleted
	}
	if r.steps == 0 {
		r.steps = 1
	}
	return event.TurnOutcome{FinalText: r.text, Steps: r.steps, ToolCalls: r.tools, StopReason: r.stop}, r.err
}

var errRewinder = errors.New("context store is read-only")

func (s *script) Mark(context.Context) (int, error) {
	s.log = append(s.log, "mark")
	if s.failAt == "mark" {
		return 0, errRewinder
	}
	s.marks++
	return 6 + s.marks, nil
}

func (s *script) Rewind(_ context.Context, mark int) error {
	s.log = append(s.log, fmt.Sprintf("rewind %d", mark))
	if s.failAt == "rewind" {
		return errRewinder
	}
	return nil
}

// texts scripts completed turns that answer with the given texts.
func texts(ts ...string) []reply {
	rs := make([]reply, len(ts))
	for i, t := range ts {
		rs[i] = reply{text: t}
	}
	return rs
}

// epoch is the first tick of the test clock.
var epoch = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// newRunner wires a runner to s with a recorder and a clock that ticks a second per call.
func newRunner(s *script) (*Runner, *testkit.Recorder) {
	rec := &testkit.Recorder{}
	tick := 0
	return &Runner{Turner: s, Rewinder: s, Sink: rec, Now: func() time.Time {
		tick++
		return epoch.Add(time.Duration(tick) * time.Second)
	}}, rec
}

// iterations builds the events the runner should emit, on the test clock: one as each node
// starts ("node", or "node/choice" when a decision led there) and one on arriving at the end
// node ("=node/choice"), which runs nothing and so counts no iteration.
func iterations(max int, steps ...string) []event.Event {
	var evs []event.Event
	n := 0
	for i, s := range steps {
		end := strings.HasPrefix(s, "=")
		node, choice, _ := strings.Cut(strings.TrimPrefix(s, "="), "/")
		if !end {
			n++
		}
		evs = append(evs, event.Event{
			Time: epoch.Add(time.Duration(i+1) * time.Second),
			Data: event.Iteration{Iteration: n, Max: max, Node: node, Choice: choice},
		})
	}
	return evs
}

func checkEvents(t *testing.T, got, want []event.Event) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %+v\nwant %+v", got, want)
	}
}

func TestRunBranchingFlowFromFile(t *testing.T) {
	f, err := LoadFlow(filepath.Join("testdata", "flows", "review.mmd"))
	if err != nil {
		t.Fatal(err)
	}
	s := &script{replies: []reply{
		{text: "Plan written.", steps: 3, tools: 2},
		{text: "Two tests fail. <choice>no</choice>", steps: 2, tools: 1},
		{text: "Fixed.", steps: 4, tools: 3},
		{text: "All green.\n<choice> yes </choice>"},
	}}
	r, rec := newRunner(s)
	res, err := r.Run(t.Context(), f, Options{MaxMoves: 10})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := Result{Outcome: OutcomeCompleted, StopReason: event.StopCompleted, Iterations: 4, Turns: 4,
		Steps: 10, ToolCalls: 6, LastChoice: "yes", FinalText: "All green.\n<choice> yes </choice>", Node: "done"}
	if res != want {
		t.Errorf("result:\n got %+v\nwant %+v", res, want)
	}
	checkEvents(t, rec.Events(), iterations(10, "plan", "check", "fix/no", "check", "=done/yes"))
	if got := s.specs[0]; !reflect.DeepEqual(got, event.TurnSpec{Prompt: "Read the task and write a plan to PLAN.md", Iteration: 1, Node: "plan"}) {
		t.Errorf("task turn spec %+v", got)
	}
	decision := s.specs[1].Prompt
	for _, part := range []string{"Do all the tests pass?", "The branches you may take:\n- yes\n- no\n", "<choice>...</choice>"} {
		if !strings.Contains(decision, part) {
			t.Errorf("decision prompt %q lacks %q", decision, part)
		}
	}
}

func TestRunShowsTheRequestAtEveryNode(t *testing.T) {
	f, err := LoadFlow(filepath.Join("testdata", "flows", "review.mmd"))
	if err != nil {
		t.Fatal(err)
	}
	s := &script{replies: texts("planned", "<choice>no</choice>", "fixed", "Again. <choice>no</choice>", "fixed", "<choice>yes</choice>")}
	r, _ := newRunner(s)
	if _, err := r.Run(t.Context(), f, Options{MaxMoves: 10, Request: "ship v2"}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(s.specs) != 6 {
		t.Fatalf("%d turns, want 6", len(s.specs))
	}
	for i, spec := range s.specs {
		if !strings.Contains(spec.Prompt, "The user's request:\nship v2") {
			t.Errorf("turn %d (%s) prompt lacks the request: %q", i+1, spec.Node, spec.Prompt)
		}
	}
	if !strings.HasPrefix(s.specs[0].Prompt, "Read the task and write a plan to PLAN.md") {
		t.Errorf("task prompt %q does not start with the node's label", s.specs[0].Prompt)
	}
	if !strings.HasSuffix(s.specs[1].Prompt, "Give the one you take inside <choice>...</choice>.") {
		t.Errorf("decision prompt %q does not end with how to answer", s.specs[1].Prompt)
	}
}

func TestRunBudgetExhaustedInAFlow(t *testing.T) {
	f, err := LoadFlow(filepath.Join("testdata", "flows", "review.d2"))
	if err != nil {
		t.Fatal(err)
	}
	s := &script{replies: texts("planned", "<choice>no</choice>", "fixed", "<choice>yes</choice>")}
	r, rec := newRunner(s)
	res, err := r.Run(t.Context(), f, Options{MaxMoves: 3})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Outcome != OutcomeBudgetExhausted ||
		res.Iterations != 3 || res.Turns != 3 || res.Node != "check" || res.LastChoice != "no" {
		t.Errorf("result %+v, want budget exhausted before the second check", res)
	}
	checkEvents(t, rec.Events(), iterations(3, "plan", "check", "fix/no"))
}

func TestRunTurnStopsEndTheFlow(t *testing.T) {
	tests := []struct {
		name    string
		replies []reply
		reason  string
		turns   int
		events  []string
	}{
		{"task hits max steps", []reply{{text: "partial", stop: event.StopMaxSteps, steps: 50}},
			"max_steps", 1, []string{"plan"}},
		{"decision caught repeating", []reply{{text: "planned"}, {stop: event.StopRepeat, steps: 12}},
			"repeat", 2, []string{"plan", "check"}},
		{"re-ask hits max steps", []reply{{text: "planned"}, {text: "hmm"}, {stop: event.StopMaxSteps}},
			"max_steps", 3, []string{"plan", "check"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := LoadFlow(filepath.Join("testdata", "flows", "review.mmd"))
			if err != nil {
				t.Fatal(err)
			}
			s := &script{replies: tt.replies}
			r, rec := newRunner(s)
			res, err := r.Run(t.Context(), f, Options{})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Outcome != OutcomeTurnStopped || string(res.StopReason) != tt.reason || res.Turns != tt.turns {
				t.Errorf("result %+v, want turn stopped (%s) after %d turns", res, tt.reason, tt.turns)
			}
			checkEvents(t, rec.Events(), iterations(0, tt.events...))
		})
	}
}

func TestRunTurnErrorIsWrapped(t *testing.T) {
	boom := errors.New("provider said no")
	f, err := LoadFlow(filepath.Join("testdata", "flows", "review.mmd"))
	if err != nil {
		t.Fatal(err)
	}
	s := &script{replies: []reply{{text: "planned"}, {err: boom, steps: 2}}}
	r, _ := newRunner(s)
	res, err := r.Run(t.Context(), f, Options{})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v does not wrap the turn's error", err)
	}
	if !strings.Contains(err.Error(), `flow node "check" (iteration 2)`) {
		t.Errorf("error %q does not name the node", err)
	}
	if res.Outcome != OutcomeError || res.Steps != 3 || res.Node != "check" {
		t.Errorf("result %+v", res)
	}
}

func TestRunRefusesBadSetups(t *testing.T) {
	f, err := LoadFlow(filepath.Join("testdata", "flows", "review.mmd"))
	if err != nil {
		t.Fatal(err)
	}
	broken := NewFlow("code")
	broken.AddNode(Node{ID: "b", Label: "BEGIN", Kind: KindBegin})
	broken.AddEdge(Edge{From: "b", To: "nowhere"})
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()

	tests := []struct {
		name string
		run  func(r *Runner) (Result, error)
		want error
	}{
		{"invalid flow", func(r *Runner) (Result, error) { return r.Run(t.Context(), broken, Options{}) }, ErrUnknownNode},
		{"fresh without rewinder", func(r *Runner) (Result, error) {
			r.Rewinder = nil
			return r.Run(t.Context(), f, Options{Fresh: true})
		}, ErrNoRewinder},
		{"cancelled", func(r *Runner) (Result, error) { return r.Run(cancelled, f, Options{}) }, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{replies: texts("planned")}
			r, _ := newRunner(s)
			res, err := tt.run(r)
			if !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
			if res.Outcome != OutcomeError || len(s.specs) != 0 {
				t.Errorf("outcome %s after %d turns, want error before any turn", res.Outcome, len(s.specs))
			}
		})
	}
}

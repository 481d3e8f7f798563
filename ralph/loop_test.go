package ralph

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/event"
)

func TestRalphStopsWhenTheModelSaysStop(t *testing.T) {
	s := &script{replies: []reply{
		{text: "Wrote the parser. <choice>CONTINUE</choice>", steps: 5, tools: 4},
		{text: "Added tests. <choice>CONTINUE</choice>", steps: 3, tools: 2},
		{text: "Everything passes.\n<choice>STOP</choice>", steps: 1},
	}}
	r, rec := newRunner(s)
	res, err := r.Ralph(t.Context(), "  fix the failing tests\n", RalphOptions{Extra: 5})
	if err != nil {
		t.Fatalf("Ralph: %v", err)
	}
	want := Result{Outcome: OutcomeStop, StopReason: event.StopCompleted, Iterations: 3, Turns: 3,
		Steps: 9, ToolCalls: 6, LastChoice: "STOP", FinalText: "Everything passes.\n<choice>STOP</choice>", Node: "END"}
	if res != want {
		t.Errorf("result:\n got %+v\nwant %+v", res, want)
	}
	checkEvents(t, rec.Events(), iterations(6, "R1", "R2", "R2/CONTINUE", "=END/STOP"))

	if s.specs[0].Prompt != "fix the failing tests" {
		t.Errorf("first turn prompt %q, want the trimmed prompt alone", s.specs[0].Prompt)
	}
	for _, spec := range s.specs[1:] {
		// Kimi CLI's protocol (KimiSoul.ralph_loop and _build_flow_prompt) in kimi-run's
		// words: the note joined to the prompt with ". ", then the branches and the tag.
		for _, part := range []string{"fix the failing tests. (This prompt runs in an automated loop", "choose CONTINUE.)",
			"The branches you may take:\n- CONTINUE\n- STOP\n\nGive the one you take inside <choice>...</choice>."} {
			if !strings.Contains(spec.Prompt, part) {
				t.Errorf("decision prompt %q lacks %q", spec.Prompt, part)
			}
		}
	}
	if s.specs[1].Prompt != s.specs[2].Prompt {
		t.Error("the decision prompt changed between iterations")
	}
}

func TestRalphBudgetExhausted(t *testing.T) {
	s := &script{replies: texts("work", "<choice>CONTINUE</choice>", "<choice>CONTINUE</choice>",
		"<choice>STOP</choice>")}
	r, rec := newRunner(s)
	res, err := r.Ralph(t.Context(), "refactor", RalphOptions{Extra: 2})
	if err != nil {
		t.Fatalf("Ralph: %v", err)
	}
	if res.Outcome != OutcomeBudgetExhausted {
		t.Errorf("outcome %s, want budget exhausted", res.Outcome)
	}
	if len(s.specs) != 3 || res.Iterations != 3 || res.LastChoice != "CONTINUE" || res.Node != "R2" {
		t.Errorf("ran %d turns, result %+v; want 3 turns ending before another R2", len(s.specs), res)
	}
	checkEvents(t, rec.Events(), iterations(3, "R1", "R2", "R2/CONTINUE"))
}

func TestRalphReasksOnAMissingChoice(t *testing.T) {
	s := &script{replies: texts("work", "I believe the work is done.", "<choice>STOP</choice>")}
	r, rec := newRunner(s)
	res, err := r.Ralph(t.Context(), "refactor", RalphOptions{Extra: 3})
	if err != nil {
		t.Fatalf("Ralph: %v", err)
	}
	if res.Outcome != OutcomeStop || res.Iterations != 2 || res.Turns != 3 {
		t.Errorf("result %+v, want stop after 2 iterations and 3 turns", res)
	}
	checkEvents(t, rec.Events(), iterations(4, "R1", "R2", "=END/STOP"))
	first, again := s.specs[1], s.specs[2]
	if again.Node != "R2" || again.Iteration != 2 {
		t.Errorf("re-ask spec %+v, want node R2 iteration 2", again)
	}
	if !strings.HasPrefix(again.Prompt, first.Prompt) || !strings.Contains(again.Prompt, "had no valid choice") {
		t.Errorf("re-ask prompt %q should repeat the question and say the tag was missing", again.Prompt)
	}
}

func TestRalphFailsAfterFourInvalidChoices(t *testing.T) {
	s := &script{replies: texts("work", "<choice>MAYBE</choice>", "<choice>stop</choice>",
		"none", "<choice>PAUSE</choice>", "<choice>STOP</choice>")}
	r, rec := newRunner(s)
	res, err := r.Ralph(t.Context(), "refactor", RalphOptions{Extra: Unlimited})
	var ce *ChoiceError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v, want a *ChoiceError", err)
	}
	want := &ChoiceError{Node: "R2", Iteration: 2, Attempts: 4, Found: true, Last: "PAUSE",
		Labels: []string{"CONTINUE", "STOP"}, Ralph: true}
	if !reflect.DeepEqual(ce, want) {
		t.Errorf("choice error %+v, want %+v", ce, want)
	}
	// issue 21 #6: the loop's internal node ids are not named.
	wantMsg := `Ralph iteration 2: no valid choice after 4 replies (last choice "PAUSE"); want one of "CONTINUE", "STOP"`
	if err.Error() != wantMsg {
		t.Errorf("message %q, want %q", err, wantMsg)
	}
	if res.Outcome != OutcomeError || res.Turns != 5 || len(s.specs) != 5 {
		t.Errorf("result %+v after %d turns, want an error after 5", res, len(s.specs))
	}
	// Like Kimi CLI's re-ask, it names no choice: one note for a missing or an unknown one.
	if !strings.HasSuffix(s.specs[2].Prompt, reaskNote) {
		t.Errorf("re-ask prompt %q does not end with the re-ask note", s.specs[2].Prompt)
	}
	checkEvents(t, rec.Events(), iterations(0, "R1", "R2"))
}

func TestRalphUnlimited(t *testing.T) {
	replies := texts("work")
	for range 20 {
		replies = append(replies, reply{text: "<choice>CONTINUE</choice>"})
	}
	replies = append(replies, reply{text: "<choice>STOP</choice>"})
	s := &script{replies: replies}
	r, _ := newRunner(s)
	res, err := r.Ralph(t.Context(), "refactor", RalphOptions{Extra: Unlimited})
	if err != nil {
		t.Fatalf("Ralph: %v", err)
	}
	if res.Outcome != OutcomeStop || res.Iterations != 22 {
		t.Errorf("result %+v, want stop after 22 iterations", res)
	}
}

func TestRalphFreshRewindsBeforeEveryLaterTurn(t *testing.T) {
	s := &script{replies: texts("work", "no tag here", "<choice>CONTINUE</choice>", "<choice>STOP</choice>")}
	r, _ := newRunner(s)
	res, err := r.Ralph(t.Context(), "refactor", RalphOptions{Extra: 4, Fresh: true})
	if err != nil {
		t.Fatalf("Ralph: %v", err)
	}
	if res.Outcome != OutcomeStop {
		t.Errorf("outcome %s, want stop", res.Outcome)
	}
	want := []string{
		"mark", "turn R1/1",
		"rewind 7", "turn R2/2", "turn R2/2", // the re-ask keeps the reply it corrects
		"rewind 7", "turn R2/3",
	}
	if !reflect.DeepEqual(s.log, want) {
		t.Errorf("log:\n got %q\nwant %q", s.log, want)
	}
}

func TestRalphSameSessionNeverRewinds(t *testing.T) {
	s := &script{replies: texts("work", "<choice>CONTINUE</choice>", "<choice>STOP</choice>")}
	r, _ := newRunner(s)
	if _, err := r.Ralph(t.Context(), "refactor", RalphOptions{Extra: 4}); err != nil {
		t.Fatal(err)
	}
	want := []string{"turn R1/1", "turn R2/2", "turn R2/3"}
	if !reflect.DeepEqual(s.log, want) {
		t.Errorf("log %q, want %q", s.log, want)
	}
}

func TestRalphFreshRewinderErrors(t *testing.T) {
	for _, at := range []string{"mark", "rewind"} {
		t.Run(at, func(t *testing.T) {
			s := &script{replies: texts("work", "<choice>STOP</choice>"), failAt: at}
			r, _ := newRunner(s)
			res, err := r.Ralph(t.Context(), "refactor", RalphOptions{Extra: 2, Fresh: true})
			if !errors.Is(err, errRewinder) || !strings.Contains(err.Error(), at+" context") {
				t.Errorf("error %v, want the %s failure wrapped", err, at)
			}
			if res.Outcome != OutcomeError {
				t.Errorf("outcome %s, want error", res.Outcome)
			}
		})
	}
}

func TestRalphRejectsBadInput(t *testing.T) {
	tests := []struct {
		prompt string
		extra  int
		want   error
	}{
		{"work", 0, ErrBadIterations},
		{"work", -2, ErrBadIterations},
		{" \n ", 3, ErrEmptyPrompt},
	}
	for _, tt := range tests {
		s := &script{}
		r, _ := newRunner(s)
		res, err := r.Ralph(t.Context(), tt.prompt, RalphOptions{Extra: tt.extra})
		if !errors.Is(err, tt.want) || res.Outcome != OutcomeError || len(s.specs) != 0 {
			t.Errorf("Ralph(%q, %d) = %v, %v; want %v before any turn", tt.prompt, tt.extra, res.Outcome, err, tt.want)
		}
	}
}

func TestRalphFlowKeepsAPromptNamedEnd(t *testing.T) {
	f, err := RalphFlow("END")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if n, _ := f.Node(RalphTask); n.Kind != KindTask || n.Label != "END" {
		t.Errorf("R1 is %+v, want a task with the prompt", n)
	}
}

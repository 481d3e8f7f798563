package ralph

import (
	"testing"

	"github.com/kimi-run/kimi-run/event"
)

// TestDrive: one turn keeps its text as the model wrote it; the Ralph loop's answer loses
// its choice tag; the images go with the first turn only, and the turner Drive leaves
// behind attaches none.
func TestDrive(t *testing.T) {
	img := []event.Image{{MIME: "image/png", Data: []byte("png")}}
	s := &script{replies: []reply{{text: "done <choice>STOP</choice>", stop: event.StopMaxSteps}}}
	r, _ := newRunner(s)
	res, err := r.Drive(t.Context(), Plan{Prompt: "look", Images: img})
	if err != nil || res.FinalText != "done <choice>STOP</choice>" || res.StopReason != event.StopMaxSteps || len(s.specs[0].Images) != 1 {
		t.Fatalf("one turn: %+v, %v, images %d", res, err, len(s.specs[0].Images))
	}
	s = &script{replies: []reply{{text: "a <choice>CONTINUE</choice>"}, {text: "b <choice>STOP</choice>"}, {text: "after"}}}
	r, _ = newRunner(s)
	res, err = r.Drive(t.Context(), Plan{Prompt: "loop", Ralph: 3, Images: img})
	if err != nil || res.FinalText != "b" || res.Outcome != OutcomeStop {
		t.Fatalf("loop: %+v, %v", res, err)
	}
	if _, err := r.Turner.Turn(t.Context(), event.TurnSpec{Prompt: "more"}); err != nil {
		t.Fatal(err)
	}
	for i, spec := range s.specs {
		if got := len(spec.Images); got != map[bool]int{true: 1}[i == 0] {
			t.Errorf("turn %d had %d images", i+1, got)
		}
	}
}

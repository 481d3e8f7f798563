package ralph

import (
	"context"

	"github.com/kimi-run/kimi-run/event"
)

// Plan is what a run drives: one turn of Prompt, the Ralph loop over it (Ralph more
// iterations, -1 for no cap: --ralph N), or Flow with Options (its move budget and the
// user's request; Fresh for the loop too).
type Plan struct {
	Prompt string
	Flow   *Flow
	Ralph  int
	Options
	// Images are attached to the first turn (--image); later turns (a Ralph iteration, a
	// flow node, a re-ask) have them in the context.
	Images []event.Image
}

// Looped says the plan runs the Ralph loop or a flow rather than one turn.
func (p Plan) Looped() bool { return p.Flow != nil || p.Ralph != 0 }

// Drive runs p through r: its one turn, its Ralph loop or its flow. Of one turn the Result
// has the final text and the stop reason; of a loop or flow, the final text without its
// choice tag. r.Turner is then the turner later turns of the run go through.
func (r *Runner) Drive(ctx context.Context, p Plan) (res Result, err error) {
	if len(p.Images) > 0 {
		r.Turner = &imageTurner{Turner: r.Turner, images: p.Images}
	}
	switch {
	case p.Flow != nil:
		res, err = r.Run(ctx, p.Flow, p.Options)
	case p.Ralph != 0:
		res, err = r.Ralph(ctx, p.Prompt, RalphOptions{Extra: p.Ralph, Fresh: p.Fresh})
	default:
		out, err := r.Turner.Turn(ctx, event.TurnSpec{Prompt: p.Prompt})
		return Result{FinalText: out.FinalText, StopReason: out.StopReason}, err
	}
	res.FinalText = StripChoice(res.FinalText)
	return res, err
}

// imageTurner attaches the images to the first turn it runs: the prompt they came with.
type imageTurner struct {
	Turner
	images []event.Image
}

// Turn implements Turner.
func (t *imageTurner) Turn(ctx context.Context, spec event.TurnSpec) (event.TurnOutcome, error) {
	spec.Images, t.images = t.images, nil
	return t.Turner.Turn(ctx, spec)
}

package ralph

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Node ids and branch labels of the Ralph flow.
const (
	RalphBegin    = "BEGIN"
	RalphTask     = "R1"
	RalphDecision = "R2"
	RalphEnd      = "END"
	RalphContinue = "CONTINUE"
	RalphStop     = "STOP"
)

// Unlimited, as RalphOptions.Extra, lets the Ralph loop run until the model chooses STOP.
const Unlimited = -1

// ErrEmptyPrompt means the Ralph loop was given nothing to repeat.
var ErrEmptyPrompt = errors.New("ralph loop needs a prompt")

// ErrBadIterations means the iteration count is neither positive nor Unlimited.
var ErrBadIterations = errors.New("ralph iterations must be positive or -1 (unlimited)")

// loopNote tells the model, at every decision, how the loop works and when to stop it. It
// follows Kimi CLI's note (KimiSoul.ralph_loop) in what it says and where it sits (joined to
// the prompt with ". "), since Kimi's models were tuned on that exchange, but in our own
// words: the project copies no text from other projects.
const loopNote = "(This prompt runs in an automated loop: the same prompt comes back after every reply. " +
	"Choose STOP only once the task is entirely done, because STOP ends the loop. " +
	"If you are not completely certain, choose CONTINUE.)"

// RalphFlow builds the Ralph loop as a flow: BEGIN → R1 (a task: the prompt) → R2 (a
// decision: the prompt and a note about the loop), with R2 -CONTINUE→ R2 and R2 -STOP→ END.
// Kinds are set explicitly, so a prompt that reads "begin" or "end" stays a prompt.
func RalphFlow(prompt string) (*Flow, error) {
	p := strings.TrimSpace(prompt)
	if p == "" {
		return nil, ErrEmptyPrompt
	}
	f := NewFlow("ralph")
	f.AddNode(Node{ID: RalphBegin, Label: "BEGIN", Kind: KindBegin})
	f.AddNode(Node{ID: RalphTask, Label: p, Kind: KindTask})
	f.AddNode(Node{ID: RalphDecision, Label: p + ". " + loopNote, Kind: KindDecision})
	f.AddNode(Node{ID: RalphEnd, Label: "END", Kind: KindEnd})
	f.AddEdge(Edge{From: RalphBegin, To: RalphTask})
	f.AddEdge(Edge{From: RalphTask, To: RalphDecision})
	f.AddEdge(Edge{From: RalphDecision, To: RalphDecision, Label: RalphContinue})
	f.AddEdge(Edge{From: RalphDecision, To: RalphEnd, Label: RalphStop})
	return f, nil
}

// RalphOptions configure one Ralph loop.
type RalphOptions struct {
	// Extra is the number of iterations after the first (--ralph N), so at most Extra+1
	// turns run: R1 and then up to Extra decision turns. Unlimited (-1) removes the cap.
	Extra int
	// Fresh starts every iteration after the first from the context as it was before the
	// first (--ralph-fresh): the model keeps only what it wrote to files, which keeps the
	// context small over long loops but forgets what it learned in earlier iterations.
	Fresh bool
}

// RalphMoves returns the move budget for extra iterations: extra+1, or 0 (no cap) for
// Unlimited.
func RalphMoves(extra int) (int, error) {
	switch {
	case extra == Unlimited:
		return 0, nil
	case extra < 1:
		return 0, fmt.Errorf("%w: got %d", ErrBadIterations, extra)
	}
	return extra + 1, nil
}

// Ralph runs prompt as a Ralph loop. The outcome is OutcomeStop when the model chose STOP,
// OutcomeBudgetExhausted when every iteration was used without it, and otherwise as Run.
func (r *Runner) Ralph(ctx context.Context, prompt string, opt RalphOptions) (Result, error) {
	moves, err := RalphMoves(opt.Extra)
	if err != nil {
		return Result{Outcome: OutcomeError}, err
	}
	f, err := RalphFlow(prompt)
	if err != nil {
		return Result{Outcome: OutcomeError}, err
	}
	res, err := r.Run(ctx, f, Options{MaxMoves: moves, Fresh: opt.Fresh})
	// The loop's node ids (R1, R2) are internal: errors name the iteration instead.
	var ne *NodeError
	if errors.As(err, &ne) {
		ne.Ralph = true
		if ne.Iteration == 0 {
			ne.Iteration = res.Iterations + 1
		}
	}
	var ce *ChoiceError
	if errors.As(err, &ce) {
		ce.Ralph = true
	}
	if res.Outcome == OutcomeCompleted {
		res.Outcome = OutcomeStop
	}
	return res, err
}

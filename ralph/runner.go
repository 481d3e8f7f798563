package ralph

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/event"
)

// Turner runs one agent turn in the current session and reports how it ended.
type Turner interface {
	Turn(ctx context.Context, spec event.TurnSpec) (event.TurnOutcome, error)
}

// Rewinder saves and restores the agent's context, for fresh-context iterations: Mark
// records the context as it is now and returns a handle; Rewind drops everything added
// after that mark.
type Rewinder interface {
	Mark(ctx context.Context) (int, error)
	Rewind(ctx context.Context, mark int) error
}

// MaxReasks is how many times a decision node is asked again after a reply without a valid
// choice, before the flow fails with a *ChoiceError.
const MaxReasks = 3

// ErrNoRewinder means fresh mode was asked for without a Rewinder to implement it.
var ErrNoRewinder = errors.New("fresh context needs a rewinder")

// Outcome says how a flow run ended.
type Outcome string

// The outcomes of a run.
const (
	// OutcomeCompleted: the flow reached its end node.
	OutcomeCompleted Outcome = "completed"
	// OutcomeStop: the Ralph loop reached its end because the model chose STOP.
	OutcomeStop Outcome = "stop"
	// OutcomeBudgetExhausted: the move budget ran out before the end node.
	OutcomeBudgetExhausted Outcome = "budget_exhausted"
	// OutcomeTurnStopped: a turn hit its step limit, the repeat guard or the token limit
	// (see StopReason).
	OutcomeTurnStopped Outcome = "turn_stopped"
	// OutcomeError: the run failed; Run returns the error.
	OutcomeError Outcome = "error"
)

// Result reports a flow run.
type Result struct {
	Outcome Outcome
	// StopReason is the reason the last turn gave; it explains OutcomeTurnStopped.
	StopReason event.StopReason
	// Iterations counts node executions (moves); re-asks do not count.
	Iterations int
	// Turns counts agent turns, re-asks included.
	Turns int
	// Steps and ToolCalls are summed over all turns.
	Steps     int
	ToolCalls int
	// LastChoice is the last valid branch label a decision node chose.
	LastChoice string
	// FinalText is the final text of the last turn.
	FinalText string
	// Node is the node the run ended on: the end node, the node that stopped or failed, or
	// the node that the exhausted budget did not let run.
	Node string
}

// Options are the limits of one run.
type Options struct {
	// MaxMoves caps node executions; 0 means no cap.
	MaxMoves int
	// Fresh runs every node after the first from the context as it was before the first:
	// the runner marks the context before the first turn and rewinds to the mark before
	// each later node. Re-asks of a decision keep the context of the reply they correct.
	Fresh bool
	// Request is the user's request for the whole flow (a prompt given with --flow, or the
	// text after /flow:NAME). It is added to the prompt of every node, so that it survives
	// Fresh rewinds and every node works towards it.
	Request string
}

// Runner executes flows, one agent turn per task or decision node, in one session.
type Runner struct {
	Turner Turner
	// Rewinder is needed only for Options.Fresh.
	Rewinder Rewinder
	// Sink receives an iteration event each time the runner leaves a node; nil drops them.
	Sink event.Sink
	// Now stamps events; nil means time.Now.
	Now func() time.Time
}

// Run executes f from its begin node until it reaches the end node, the budget runs out, a
// turn stops early or something fails. The Result is filled in every case; the error is
// non-nil exactly when the outcome is OutcomeError and wraps the cause: a
// *ValidationError, a *ChoiceError, ErrNoRewinder, or the Turner's or Rewinder's error.
func (r *Runner) Run(ctx context.Context, f *Flow, opt Options) (Result, error) {
	var res Result
	fail := func(err error) (Result, error) {
		res.Outcome = OutcomeError
		return res, err
	}
	if err := f.Validate(); err != nil {
		return fail(fmt.Errorf("invalid flow: %w", err))
	}
	if opt.Fresh && r.Rewinder == nil {
		return fail(ErrNoRewinder)
	}
	mark := 0
	cur := f.begin()
	// arrivedBy is the branch taken to reach the current node.
	arrivedBy := ""
	for {
		n := f.nodes[cur]
		res.Node = n.ID
		switch n.Kind {
		case KindBegin:
			cur = f.out[cur][0].To
			continue
		case KindEnd:
			// The transition into END carries the choice that ended the flow.
			r.emit(event.Iteration{Iteration: res.Iterations, Max: opt.MaxMoves, Node: n.ID, Choice: arrivedBy})
			res.Outcome = OutcomeCompleted
			return res, nil
		}
		if opt.MaxMoves > 0 && res.Iterations >= opt.MaxMoves {
			res.Outcome = OutcomeBudgetExhausted
			return res, nil
		}
		if err := ctx.Err(); err != nil {
			return fail(&NodeError{Node: n.ID, Err: err})
		}
		if opt.Fresh {
			if err := r.freshen(ctx, res.Iterations == 0, &mark); err != nil {
				return fail(&NodeError{Node: n.ID, Err: err})
			}
		}
		res.Iterations++
		// Announced as the node starts, so progress reads "iteration 3/11" before its work.
		r.emit(event.Iteration{Iteration: res.Iterations, Max: opt.MaxMoves, Node: n.ID, Choice: arrivedBy})
		next, choice, err := r.execute(ctx, f, n, opt.Request, &res)
		if err != nil {
			return fail(err)
		}
		if res.Outcome == OutcomeTurnStopped {
			return res, nil
		}
		if choice != "" {
			res.LastChoice = choice
		}
		arrivedBy = choice
		cur = next
	}
}

// freshen takes the mark before the first node and rewinds to it before every later one.
func (r *Runner) freshen(ctx context.Context, first bool, mark *int) error {
	if first {
		m, err := r.Rewinder.Mark(ctx)
		if err != nil {
			return fmt.Errorf("mark context: %w", err)
		}
		*mark = m
		return nil
	}
	if err := r.Rewinder.Rewind(ctx, *mark); err != nil {
		return fmt.Errorf("rewind context: %w", err)
	}
	return nil
}

// execute runs node n and returns the node to go to next and, for a decision, the branch
// taken. When a turn stops early it sets res.Outcome to OutcomeTurnStopped.
func (r *Runner) execute(ctx context.Context, f *Flow, n *Node, request string, res *Result) (string, string, error) {
	out := f.out[n.ID]
	if n.Kind == KindTask {
		if _, err := r.turn(ctx, n, WithRequest(n.Label, request), res); err != nil || res.Outcome == OutcomeTurnStopped {
			return "", "", err
		}
		return out[0].To, "", nil
	}
	labels := f.Labels(n.ID)
	base := decisionPrompt(WithRequest(n.Label, request), labels)
	prompt := base
	var last string
	var found bool
	for attempt := 0; attempt <= MaxReasks; attempt++ {
		text, err := r.turn(ctx, n, prompt, res)
		if err != nil || res.Outcome == OutcomeTurnStopped {
			return "", "", err
		}
		last, found = ParseChoice(text)
		if found {
			for _, e := range out {
				if e.Label == last {
					return e.To, last, nil
				}
			}
		}
		prompt = base + reaskNote
	}
	return "", "", &ChoiceError{Node: n.ID, Iteration: res.Iterations, Attempts: MaxReasks + 1,
		Found: found, Last: last, Labels: labels}
}

// turn runs one agent turn for node n and adds it to res.
func (r *Runner) turn(ctx context.Context, n *Node, prompt string, res *Result) (string, error) {
	out, err := r.Turner.Turn(ctx, event.TurnSpec{Prompt: prompt, Iteration: res.Iterations, Node: n.ID})
	res.Turns++
	res.Steps += out.Steps
	res.ToolCalls += out.ToolCalls
	if err != nil {
		return "", &NodeError{Node: n.ID, Iteration: res.Iterations, Err: err}
	}
	res.FinalText = out.FinalText
	res.StopReason = out.StopReason
	if out.StopReason == event.StopMaxSteps || out.StopReason == event.StopRepeat || out.StopReason == event.StopTruncated {
		res.Outcome = OutcomeTurnStopped
	}
	return out.FinalText, nil
}

func (r *Runner) emit(it event.Iteration) {
	if r.Sink == nil {
		return
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	r.Sink.Emit(event.Event{Time: now(), Data: it})
}

// WithRequest adds the user's request to a skill's body or a flow node's prompt; an empty
// request leaves the prompt as it is.
func WithRequest(prompt, request string) string {
	request = strings.TrimSpace(request)
	if request == "" {
		return prompt
	}
	return prompt + "\n\nThe user's request:\n" + request
}

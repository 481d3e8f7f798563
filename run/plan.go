package run

import (
	"context"

	"github.com/kimi-run/kimi-run/agent/answerschema"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/ralph"
	"github.com/kimi-run/kimi-run/skills"
	"github.com/kimi-run/kimi-run/tools"
)

// runPlan runs the plan's turn, Ralph loop or flow through t, then after (when set: the wait
// for background tasks, which may run more turns through t). Under --json-schema every
// prompt carries the schema, and an answer that does not match it is asked for again.
func runPlan(ctx context.Context, s *config.Settings, plan plan, t ralph.Turner, rw ralph.Rewinder, sink event.Sink, warn func(string),
	after func(context.Context, ralph.Turner, outcome, error) (outcome, error)) (outcome, error) {
	if plan.schema != nil {
		t = plan.schema.Prompted(t, plan.flow != nil || plan.ralph != 0)
	}
	if len(plan.images) > 0 {
		t = &imageTurner{Turner: t, images: plan.images}
	}
	var out outcome
	var err error
	if plan.flow == nil && plan.ralph == 0 {
		var res event.TurnOutcome
		res, err = t.Turn(ctx, event.TurnSpec{Prompt: plan.prompt})
		out = outcome{finalText: res.FinalText, stop: res.StopReason}
	} else {
		runner := &ralph.Runner{Turner: t, Rewinder: rw, Sink: sink}
		var res ralph.Result
		if plan.flow != nil {
			res, err = runner.Run(ctx, plan.flow, ralph.Options{MaxMoves: plan.moves, Fresh: s.Flags.RalphFresh, Request: plan.request})
		} else {
			res, err = runner.Ralph(ctx, plan.prompt, ralph.RalphOptions{Extra: plan.ralph, Fresh: s.Flags.RalphFresh})
		}
		out = outcome{finalText: ralph.StripChoice(res.FinalText), stop: res.StopReason, flow: true, flowResult: res}
	}
	if after != nil {
		out, err = after(ctx, t, out, err)
	}
	if plan.schema == nil || !schemaDue(out, err) {
		return out, err
	}
	settled, err := plan.schema.Settle(ctx, t, out.finalText, ralph.StripChoice, warn)
	out.finalText, out.structured = settled.FinalText, settled.Value
	if settled.Stop != "" {
		out.stop = settled.Stop
		if out.flow {
			out.flowResult.Outcome, out.flowResult.StopReason = ralph.OutcomeTurnStopped, settled.Stop
		}
	}
	return out, err
}

// schemaDue reports whether the run reached a final answer that the schema should judge:
// it ended without an error and without a limit.
func schemaDue(out outcome, err error) bool {
	if err != nil {
		return false
	}
	if out.flow {
		return out.flowResult.Outcome == ralph.OutcomeStop || out.flowResult.Outcome == ralph.OutcomeCompleted
	}
	return out.stop == event.StopCompleted
}

// SchemaError is a final answer that still does not match --json-schema after the re-asks.
type SchemaError = answerschema.Error

func toolNames(ts []tools.Tool) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name()
	}
	return names
}

// plan is what a run will do, decided before any model call so that a bad flow file or an
// unknown skill is a usage error.
type plan struct {
	prompt string
	flow   *ralph.Flow
	moves  int
	ralph  int
	// request is the user's request shown with every node of a flow.
	request string
	// schema is --json-schema, compiled; nil without one.
	schema *answerschema.Schema
	// images are --image, attached to the first prompt.
	images []event.Image
}

func planRun(ctx context.Context, s *config.Settings, found *skills.Set, prompt string) (plan, error) {
	cli := &s.Flags
	p := plan{prompt: prompt, ralph: s.Ralph}
	var err error
	if p.schema, err = answerschema.Load(ctx, cli.JSONSchema); err != nil {
		return p, usagef("%w", err)
	}
	if cli.Flow != "" { // config.Resolve refused --ralph with it
		f, err := ralph.LoadFlow(cli.Flow)
		if err != nil {
			return p, usagef("flow: %w", err)
		}
		if err := f.Validate(); err != nil {
			return p, usagef("flow: %w", err)
		}
		// The flow's nodes are the prompts; a prompt given with it is the user's request.
		p.flow, p.moves, p.request, p.prompt = f, cli.MaxMoves, prompt, ""
		return p, nil
	}
	exp, err := skills.ExpandPrompt(found, prompt)
	if err != nil {
		return p, usagef("%w", err)
	}
	if exp.Flow != nil {
		p.flow, p.moves, p.ralph, p.request = exp.Flow, exp.MaxMoves, 0, exp.Request
		return p, nil
	}
	p.prompt = exp.Prompt
	return p, nil
}

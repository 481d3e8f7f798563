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

// runPlan runs the plan through t (ralph.Runner.Drive), then after (when set: the wait
// for background tasks, which may run more turns through t). Under --json-schema every
// prompt carries the schema, and an answer that does not match it is asked for again.
func runPlan(ctx context.Context, plan plan, t ralph.Turner, rw ralph.Rewinder, sink event.Sink, warn func(string),
	after func(context.Context, ralph.Turner, outcome, error) (outcome, error)) (outcome, error) {
	if plan.schema != nil {
		t = plan.schema.Prompted(t, plan.Looped())
	}
	runner := &ralph.Runner{Turner: t, Rewinder: rw, Sink: sink}
	res, err := runner.Drive(ctx, plan.Plan)
	out := outcome{finalText: res.FinalText, stop: res.StopReason, flow: plan.Looped(), flowResult: res}
	if after != nil {
		out, err = after(ctx, runner.Turner, out, err)
	}
	if plan.schema == nil || !schemaDue(out, err) {
		return out, err
	}
	settled, err := plan.schema.Settle(ctx, runner.Turner, out.finalText, ralph.StripChoice, warn)
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

func toolNames(ts []tools.Tool) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name()
	}
	return names
}

// plan is what a run will do (ralph.Plan) and the schema its answer must match, decided
// before any model call so that a bad flow file or an unknown skill is a usage error.
type plan struct {
	ralph.Plan
	// schema is --json-schema, compiled; nil without one.
	schema *answerschema.Schema
}

func planRun(ctx context.Context, s *config.Settings, found *skills.Set, prompt string) (plan, error) {
	cli := &s.Flags
	p := plan{Plan: ralph.Plan{Prompt: prompt, Ralph: s.Ralph, Options: ralph.Options{Fresh: cli.RalphFresh}}}
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
		p.Flow, p.MaxMoves, p.Request, p.Prompt = f, cli.MaxMoves, prompt, ""
		return p, nil
	}
	exp, err := skills.ExpandPrompt(found, prompt)
	if err != nil {
		return p, usagef("%w", err)
	}
	if exp.Flow != nil {
		p.Flow, p.MaxMoves, p.Ralph, p.Request = exp.Flow, exp.MaxMoves, 0, exp.Request
		return p, nil
	}
	p.Prompt = exp.Prompt
	return p, nil
}

package run

import (
	"context"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/hooks"
	"github.com/kimi-run/kimi-run/ralph"
)

// runHooks fires the hooks of the run's own moments: the session's start and end, the
// prompt, and the stop. Tool hooks wrap the tools and the agent reports compactions and
// subagents (the engine is its agent.Lifecycle).
type runHooks struct {
	e     *hooks.Engine
	scrub func(string) string
	// note is what SessionStart hooks printed, waiting for the first prompt.
	note string
}

// around runs work, which runs the user's prompt through turner, between the prompt and
// the stop hooks, as Kimi CLI does for each user input: UserPromptSubmit first (it may
// refuse the prompt, or add context to it), then Stop when the work ended well (a Stop
// hook that blocks with a reason gets one more turn with that reason as the prompt, once),
// or StopFailure when it did not.
func (h *runHooks) around(ctx context.Context, prompt string, a ralph.Turner, work func(ralph.Turner) (outcome, error)) (outcome, error) {
	note, err := h.e.PromptSubmitted(ctx, prompt)
	if err != nil {
		// No final text: the reason is the error's, on stderr and in the result's error,
		// never on text-mode stdout, where `> answer.md` would take it for the answer.
		return outcome{}, err
	}
	if h.note != "" && note != "" {
		note = "\n\n" + note
	}
	t := &noteTurner{Turner: a, note: h.note + note}
	h.note = ""
	out, err := work(t)

	v := judge(out, err, context.Cause(ctx))
	switch {
	case v.code == ExitOK:
		reason := h.e.Stopping(ctx)
		if reason == "" {
			break
		}
		more, err := a.Turn(ctx, event.TurnSpec{Prompt: reason})
		if more.FinalText != "" || more.StopReason != event.StopCompleted {
			out.finalText = more.FinalText
		}
		if err != nil || more.StopReason != event.StopCompleted {
			out.flow, out.stop = false, more.StopReason // the extra turn's limit decides
		}
		return out, err
	case v.reason != "cancelled" && v.reason != "timeout" && v.err != nil:
		h.e.Failed(ctx, v.err.Kind, h.scrub(v.err.Message))
	}
	return out, err
}

// noteTurner adds the hooks' context to the prompt of the first turn it runs.
type noteTurner struct {
	ralph.Turner
	note string
}

func (t *noteTurner) Turn(ctx context.Context, spec event.TurnSpec) (event.TurnOutcome, error) {
	if t.note != "" {
		spec.Prompt += "\n\n<system>From the user's hooks:\n" + t.note + "</system>"
		t.note = ""
	}
	return t.Turner.Turn(ctx, spec)
}

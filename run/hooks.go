package run

import (
	"context"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/hooks"
	"github.com/kimi-run/kimi-run/ralph"
)

// newHookEngine is the engine of the config file's hooks (config.Resolve checked them).
func newHookEngine(hs []hooks.Hook) (*hooks.Engine, error) {
	e, err := hooks.New(hs)
	if err != nil {
		return nil, usagef("config file: %w", err)
	}
	return e, nil
}

// hookBlockedError is a prompt a UserPromptSubmit hook refused: the run did not do its task.
type hookBlockedError struct{ reason string }

func (e *hookBlockedError) Error() string {
	return "a UserPromptSubmit hook blocked the prompt: " + e.reason
}

// sessionEndTimeout bounds the SessionEnd hooks: the run has ended and must exit.
const sessionEndTimeout = 5 * time.Second

// runHooks fires the hooks of the run's own moments: the session's start and end, the
// prompt, and the stop. Tool hooks wrap the tools and the agent reports compactions and
// subagents (hookLifecycle).
type runHooks struct {
	e     *hooks.Engine
	scrub func(string) string
	// note is what SessionStart hooks printed, waiting for the first prompt.
	note string
}

// sessionStart fires SessionStart; source is startup or resume.
func (h *runHooks) sessionStart(ctx context.Context, source string) {
	h.note = h.e.Fire(ctx, hooks.SessionStart, source, map[string]any{"source": source}).Context
}

// sessionEnd fires SessionEnd once the run's outcome is known.
func (h *runHooks) sessionEnd(ctx context.Context, v verdict) {
	if !h.e.Has(hooks.SessionEnd) {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionEndTimeout)
	defer cancel()
	h.e.Fire(ctx, hooks.SessionEnd, "exit", map[string]any{"reason": "exit", "terminal_reason": v.reason, "exit_code": int(v.code)})
}

// around runs work, which runs the user's prompt through turner, between the prompt and
// the stop hooks, as Kimi CLI does for each user input: UserPromptSubmit first (it may
// refuse the prompt, or add context to it), then Stop when the work ended well (a Stop
// hook that blocks with a reason gets one more turn with that reason as the prompt, once),
// or StopFailure when it did not.
func (h *runHooks) around(ctx context.Context, prompt string, a ralph.Turner, work func(ralph.Turner) (outcome, error)) (outcome, error) {
	up := h.e.Fire(ctx, hooks.UserPromptSubmit, prompt, map[string]any{"prompt": prompt})
	if up.Blocked {
		reason := up.Reason
		if reason == "" {
			reason = "no reason given"
		}
		// No final text: the reason is the error's, on stderr and in the result's error,
		// never on text-mode stdout, where `> answer.md` would take it for the answer.
		return outcome{}, &hookBlockedError{reason: reason}
	}
	t := &noteTurner{Turner: a, note: joinNotes(h.note, up.Context)}
	h.note = ""
	out, err := work(t)

	v := judge(out, err, context.Cause(ctx))
	switch {
	case v.code == ExitOK && h.e.Has(hooks.Stop):
		st := h.e.Fire(ctx, hooks.Stop, "", map[string]any{"stop_hook_active": false})
		if !st.Blocked || st.Reason == "" {
			break
		}
		more, err := a.Turn(ctx, event.TurnSpec{Prompt: st.Reason})
		if more.FinalText != "" || more.StopReason != event.StopCompleted {
			out.finalText = more.FinalText
		}
		if err != nil || more.StopReason != event.StopCompleted {
			out.flow, out.stop = false, more.StopReason // the extra turn's limit decides
		}
		return out, err
	case v.code != ExitOK && v.reason != "cancelled" && v.reason != "timeout" && v.err != nil:
		h.e.Fire(ctx, hooks.StopFailure, v.err.Kind, map[string]any{
			"error_type": v.err.Kind, "error_message": h.scrub(v.err.Message)})
	}
	return out, err
}

func joinNotes(notes ...string) string {
	out := ""
	for _, n := range notes {
		if n != "" {
			if out != "" {
				out += "\n\n"
			}
			out += n
		}
	}
	return out
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

// hookLifecycle tells the hooks of compactions and subagents (agent.Lifecycle).
type hookLifecycle struct{ e *hooks.Engine }

// subjectCap bounds the prompt and answer a subagent hook gets, as in Kimi CLI.
const subjectCap = 500

func (l hookLifecycle) SubagentStart(ctx context.Context, kind, prompt string) {
	l.e.Fire(ctx, hooks.SubagentStart, kind, map[string]any{"agent_name": kind, "prompt": clipText(prompt, subjectCap)})
}

func (l hookLifecycle) SubagentStop(ctx context.Context, kind, answer string) {
	l.e.Fire(ctx, hooks.SubagentStop, kind, map[string]any{"agent_name": kind, "response": clipText(answer, subjectCap)})
}

func (l hookLifecycle) PreCompact(ctx context.Context, tokens int) {
	l.e.Fire(ctx, hooks.PreCompact, "auto", map[string]any{"trigger": "auto", "token_count": tokens})
}

func (l hookLifecycle) PostCompact(ctx context.Context, tokens int) {
	l.e.Fire(ctx, hooks.PostCompact, "auto", map[string]any{"trigger": "auto", "estimated_token_count": tokens})
}

// clipText keeps the first n runes of s.
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

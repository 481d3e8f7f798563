package hooks

import (
	"context"
	"time"
)

// sessionEndTimeout bounds the SessionEnd hooks: the run has ended and must exit.
const sessionEndTimeout = 5 * time.Second

// subjectCap bounds the prompt and answer a subagent hook gets (in runes), as in Kimi CLI.
const subjectCap = 500

// BlockedError is a prompt a UserPromptSubmit hook refused: the run did not do its task.
type BlockedError struct{ Reason string }

func (e *BlockedError) Error() string {
	return "a UserPromptSubmit hook blocked the prompt: " + e.Reason
}

// SessionStart fires SessionStart (source: startup or resume) and returns what the hooks
// printed for the model.
func (e *Engine) SessionStart(ctx context.Context, source string) string {
	return e.Fire(ctx, SessionStart, source, map[string]any{"source": source}).Context
}

// SessionEnd fires SessionEnd once the run's outcome is known: its terminal reason and exit
// code. The hooks get a few seconds of their own, whether ctx has ended or not.
func (e *Engine) SessionEnd(ctx context.Context, reason string, code int) {
	if !e.Has(SessionEnd) {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionEndTimeout)
	defer cancel()
	e.Fire(ctx, SessionEnd, "exit", map[string]any{"reason": "exit", "terminal_reason": reason, "exit_code": code})
}

// PromptSubmitted fires UserPromptSubmit: what the hooks printed for the model, or a
// *BlockedError when one refused the prompt.
func (e *Engine) PromptSubmitted(ctx context.Context, prompt string) (string, error) {
	up := e.Fire(ctx, UserPromptSubmit, prompt, map[string]any{"prompt": prompt})
	if !up.Blocked {
		return up.Context, nil
	}
	if up.Reason == "" {
		return "", &BlockedError{Reason: "no reason given"}
	}
	return "", &BlockedError{Reason: up.Reason}
}

// Stopping fires Stop after work that ended well; a hook that blocks it with a reason asks
// for one more turn with that reason as its prompt, which Stopping returns ("" for none).
func (e *Engine) Stopping(ctx context.Context) string {
	if !e.Has(Stop) {
		return ""
	}
	st := e.Fire(ctx, Stop, "", map[string]any{"stop_hook_active": false})
	if !st.Blocked {
		return ""
	}
	return st.Reason
}

// Failed fires StopFailure after work that failed, with the result's error.
func (e *Engine) Failed(ctx context.Context, kind, message string) {
	e.Fire(ctx, StopFailure, kind, map[string]any{"error_type": kind, "error_message": message})
}

// SubagentStart fires SubagentStart (agent.Lifecycle).
func (e *Engine) SubagentStart(ctx context.Context, kind, prompt string) {
	e.Fire(ctx, SubagentStart, kind, map[string]any{"agent_name": kind, "prompt": clipRunes(prompt, subjectCap)})
}

// SubagentStop fires SubagentStop (agent.Lifecycle).
func (e *Engine) SubagentStop(ctx context.Context, kind, answer string) {
	e.Fire(ctx, SubagentStop, kind, map[string]any{"agent_name": kind, "response": clipRunes(answer, subjectCap)})
}

// PreCompact fires PreCompact (agent.Lifecycle).
func (e *Engine) PreCompact(ctx context.Context, tokens int) {
	e.Fire(ctx, PreCompact, "auto", map[string]any{"trigger": "auto", "token_count": tokens})
}

// PostCompact fires PostCompact (agent.Lifecycle).
func (e *Engine) PostCompact(ctx context.Context, tokens int) {
	e.Fire(ctx, PostCompact, "auto", map[string]any{"trigger": "auto", "estimated_token_count": tokens})
}

// clipRunes keeps the first n runes of s.
func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

package run

import (
	"fmt"

	"github.com/kimi-run/kimi-run/config"
)

// promptTokens estimates the tokens of the task's text the way the agent estimates context:
// about four bytes a token.
func promptTokens(p plan) int {
	return (len(p.Prompt) + len(p.Request)) / 4
}

// checkPromptSize refuses a prompt that cannot fit the model's context window before any
// model call: compaction cannot shrink the one message the run starts with, and the
// provider would reject every request. When the window is only assumed (not configured),
// a prompt over it gets a warning instead, since the real window may be larger.
func checkPromptSize(p plan, e config.Endpoint, system string) (warning string, err error) {
	if sys := len(system) / 4; sys >= e.MaxContext && e.ContextKnown {
		// Nothing could ever be sent: every request starts with it.
		return "", usagef("the system prompt alone is about %d tokens, at least the model's context window of %d tokens (--max-context-size, KIMI_MODEL_MAX_CONTEXT_SIZE or the config file): is the window right?", sys, e.MaxContext)
	}
	tokens := promptTokens(p) + len(system)/4
	if tokens <= e.MaxContext {
		return "", nil
	}
	if e.ContextKnown {
		return "", usagef("the prompt is about %d tokens, more than the model's context window of %d tokens (--max-context-size, KIMI_MODEL_MAX_CONTEXT_SIZE or the config file): pass less, or a file the agent can read in parts", tokens, e.MaxContext)
	}
	return fmt.Sprintf("the prompt is about %d tokens, more than the context window of %d tokens assumed when none is configured; the provider may refuse it (set --max-context-size to the model's window)", tokens, e.MaxContext), nil
}

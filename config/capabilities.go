package config

import (
	"fmt"
	"slices"
)

// codingModels are the model ids Kimi CLI credits with image and video input whatever their
// config entry says (llm.py derive_model_capabilities): the models of a `kimi login`.
var codingModels = []string{"kimi-for-coding", "kimi-code"}

// Reads reports whether the model takes media of capability c (image_in or video_in): its
// config entry or KIMI_MODEL_CAPABILITIES lists it, or Kimi CLI credits its model id with it.
func (e Endpoint) Reads(c string) bool {
	return slices.Contains(e.Capabilities, c) || slices.Contains(codingModels, e.Model)
}

// CheckPromptSize refuses a prompt of promptBytes (with the system prompt) that cannot fit
// the model's context window, before any model call, estimating tokens as the agent does
// (about four bytes a token): compaction cannot shrink the one message the run starts
// with, and the provider would reject every request. When the window is only assumed (not
// configured), a prompt over it gets a warning instead, since the real window may be larger.
func (e Endpoint) CheckPromptSize(promptBytes int, system string) (warning string, err error) {
	if sys := len(system) / 4; sys >= e.MaxContext && e.ContextKnown {
		// Nothing could ever be sent: every request starts with it.
		return "", Usagef("the system prompt alone is about %d tokens, at least the model's context window of %d tokens (--max-context-size, KIMI_MODEL_MAX_CONTEXT_SIZE or the config file): is the window right?", sys, e.MaxContext)
	}
	tokens := promptBytes/4 + len(system)/4
	if tokens <= e.MaxContext {
		return "", nil
	}
	if e.ContextKnown {
		return "", Usagef("the prompt is about %d tokens, more than the model's context window of %d tokens (--max-context-size, KIMI_MODEL_MAX_CONTEXT_SIZE or the config file): pass less, or a file the agent can read in parts", tokens, e.MaxContext)
	}
	return fmt.Sprintf("the prompt is about %d tokens, more than the context window of %d tokens assumed when none is configured; the provider may refuse it (set --max-context-size to the model's window)", tokens, e.MaxContext), nil
}

package event

// The payloads of a step, one model call: its start, what streams, its retries and
// fallbacks, its usage, and the compactions between steps. How payloads become the schema
// and the docs: see payload.go.

// StepBegin starts a model call.
type StepBegin struct {
	// The turn the call belongs to.
	Turn int `json:"turn" minimum:"1"`
	// The model call's number within its turn, from 1.
	Step int `json:"step" minimum:"1"`
}

// Type is "step_begin".
func (StepBegin) Type() Type { return TypeStepBegin }

// Text carries assistant text as it streams.
//
// After a `retry` event for the same step, the step's text starts again from the beginning.
type Text struct {
	// The model call the text belongs to.
	Step int `json:"step" minimum:"1"`
	// The next piece of text.
	Delta string `json:"delta"`
}

// Type is "text".
func (Text) Type() Type { return TypeText }

// Thinking carries the model's reasoning as it streams, whichever field the provider uses
// (`reasoning_content`, OpenRouter's `reasoning` or the text of its `reasoning_details`;
// one chunk's thought is shown once).
type Thinking struct {
	// The model call the reasoning belongs to.
	Step int `json:"step" minimum:"1"`
	// The next piece of reasoning.
	Delta string `json:"delta"`
}

// Type is "thinking".
func (Thinking) Type() Type { return TypeThinking }

// Retry reports a model call that failed transiently; it is written before the backoff
// wait.
type Retry struct {
	// The step whose model call failed; 0 for a compaction's summary.
	Step int `json:"step" minimum:"0"`
	// The attempt that failed, from 1.
	Attempt int `json:"attempt" minimum:"1"`
	// All attempts, the first included: `--max-retries` + 1.
	MaxAttempts int `json:"max_attempts" minimum:"1"`
	// The wait before the next attempt, in milliseconds.
	DelayMS int64 `json:"delay_ms" minimum:"0"`
	// What went wrong, in one line.
	Error string `json:"error"`
	// The HTTP status of the failed attempt; absent when it got none (a network error, a cut
	// stream).
	HTTPStatus int `json:"http_status,omitempty" minimum:"100" maximum:"599"`
}

// Type is "retry".
func (Retry) Type() Type { return TypeRetry }

// ModelFallback reports that the run moved on to the next model of its `--fallback-model`
// chain: a model call still failed transiently after its retries (overload, 5xx, network),
// and is made again on that model, which the rest of the run uses. A `warning` says the
// same for people.
type ModelFallback struct {
	// The step whose model call failed; 0 for a compaction's summary.
	Step int `json:"step" minimum:"0"`
	// The model that kept failing (its model id).
	From string `json:"from" minLength:"1"`
	// The fallback model now used, as `--fallback-model` named it (a config model or a model id).
	To string `json:"to" minLength:"1"`
	// The provider type of the fallback model (`kimi`, `openai_legacy`, `anthropic`, …); absent for an endpoint from the environment.
	Provider string `json:"provider,omitempty" minLength:"1"`
	// Why the last attempt on the failing model failed, in one line.
	Error string `json:"error"`
}

// Type is "model_fallback".
func (ModelFallback) Type() Type { return TypeModelFallback }

// Usage reports token usage after each model call, once its reply has fully streamed: every
// `tool_call` of the step comes before it.
//
// The counts are as the provider reported them wherever it put them: a usage chunk, inside
// the finishing choice (Moonshot), under `x_groq` (Groq).
type Usage struct {
	// The model call the usage is for.
	Step int `json:"step" minimum:"1"`
	// Prompt tokens of the call.
	InputTokens int `json:"input_tokens" minimum:"0"`
	// Completion tokens of the call.
	OutputTokens int `json:"output_tokens" minimum:"0"`
	// The prompt tokens served from the provider's cache (`usage.cached_tokens` or
	// `prompt_tokens_details.cached_tokens`).
	CachedTokens int `json:"cached_tokens" minimum:"0"`
	// The part of `output_tokens` spent thinking, when the provider reports it
	// (`completion_tokens_details.reasoning_tokens`); absent otherwise.
	ReasoningTokens int `json:"reasoning_tokens,omitempty" minimum:"0"`
	// The prompt tokens written to the provider's prompt cache, part of `input_tokens`
	// and priced apart (Anthropic's `cache_creation_input_tokens`); absent when none.
	CacheWriteTokens int `json:"cache_write_tokens,omitempty" minimum:"0"`
	// The context's size after the call (its input and output tokens), what compaction is
	// measured by.
	ContextTokens int `json:"context_tokens" minimum:"0"`
}

// Type is "usage".
func (Usage) Type() Type { return TypeUsage }

// CompactionBegin starts a context compaction.
type CompactionBegin struct {
	// The context's size before compaction, in tokens.
	TokensBefore int `json:"tokens_before" minimum:"0"`
}

// Type is "compaction_begin".
func (CompactionBegin) Type() Type { return TypeCompactionBegin }

// CompactionEnd ends a context compaction.
type CompactionEnd struct {
	// The context's size before compaction, in tokens.
	TokensBefore int `json:"tokens_before" minimum:"0"`
	// The context's size after compaction, in tokens.
	TokensAfter int `json:"tokens_after" minimum:"0"`
	// Whether the summary failed and the oldest messages were dropped instead.
	Fallback bool `json:"fallback,omitempty"`
	// Why the summary failed, when it did.
	Error string `json:"error,omitempty" minLength:"1"`
}

// Type is "compaction_end".
func (CompactionEnd) Type() Type { return TypeCompactionEnd }

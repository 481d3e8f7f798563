// Package model is the provider client's contract: the Model interface a run talks to, the
// messages a conversation is made of, the error types every client maps its failures onto
// (which decide retries and exit codes), the streaming kit the protocol clients share
// (Streamer), the chat-completions client, and the token budget, prices and fallback chain
// around any Model. The other wire protocols have a package each under model/, and
// model/protocols picks one by the provider's type. It knows nothing of turns, tools'
// execution or sessions.
package model

import (
	"context"
	"encoding/json"

	"github.com/kimi-run/kimi-run/tools"
)

// Model streams one chat completion. Implementations call the handler's functions as the
// reply arrives and return the whole reply once it is complete.
type Model interface {
	Stream(ctx context.Context, req Request, h Handler) (Reply, error)
}

// Request is one model call.
type Request struct {
	Messages []Message
	Tools    []tools.Tool
	// MaxTokens caps the completion; 0 leaves it to the provider.
	MaxTokens int
	// NoTools sends no tool definitions (compaction summaries).
	NoTools bool
}

// Handler receives a reply as it streams. Any field may be nil. Calls arrive from the
// goroutine that called Stream, in stream order.
type Handler struct {
	Text     func(delta string)
	Thinking func(delta string)
	// ToolCall is called once per tool call, as soon as that call has fully streamed.
	ToolCall func(call CallSpec)
}

// Reply is a complete model answer.
type Reply struct {
	Text      string
	Reasoning string
	ToolCalls []CallSpec
	// FinishReason is the provider's finish_reason (stop, tool_calls, length, …).
	FinishReason string
	Usage        TokenUsage
	// ReasoningField is the field the reasoning came in (ReasoningContent, ReasoningText
	// or ReasoningDetails); it goes back to the provider in the same one.
	ReasoningField string
	// ReasoningDetails are OpenRouter's reasoning blocks, merged from the stream, to be
	// sent back unchanged.
	ReasoningDetails json.RawMessage
}

// TokenUsage is the token accounting of one model call.
type TokenUsage struct {
	InputTokens  int
	OutputTokens int
	CachedTokens int
	// ReasoningTokens is the part of OutputTokens the model spent thinking, when the
	// provider says (completion_tokens_details.reasoning_tokens).
	ReasoningTokens int
	// CacheWriteTokens is the part of InputTokens written to the provider's prompt cache,
	// which costs more than plain input (Anthropic's cache_creation_input_tokens).
	CacheWriteTokens int
}

// Add adds o's counts to u.
func (u *TokenUsage) Add(o TokenUsage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CachedTokens += o.CachedTokens
	u.ReasoningTokens += o.ReasoningTokens
	u.CacheWriteTokens += o.CacheWriteTokens
}

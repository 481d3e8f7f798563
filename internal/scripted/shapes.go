package scripted

import (
	"net/http"
	"strings"
)

// Where a reply's usage goes; providers disagree.
type usageWhere int

const (
	usageChunk    usageWhere = iota // OpenAI: a last chunk with "choices":[] and top-level usage
	usageInChoice                   // Moonshot: inside the finishing choice, no chunk after it
	usageXGroq                      // Groq: under x_groq in the finishing chunk
	usageNone                       // a server that reports nothing
)

// UsageInChoice puts the usage inside the finishing choice and sends no usage chunk after
// it, with cached tokens as a top-level usage.cached_tokens: how Moonshot's API streams
// kimi-k2.5 (the moonpalace recording in testdata/providers).
func UsageInChoice() Part {
	return func(b *replyBuilder) {
		b.usageWhere = usageInChoice
		cached := 0
		if b.usage.Details != nil {
			cached = b.usage.Details.Cached
		}
		b.usage.CachedTop, b.usage.Details = &cached, nil
	}
}

// UsageXGroq puts the usage under x_groq in the finishing chunk, as Groq streams it.
func UsageXGroq() Part { return func(b *replyBuilder) { b.usageWhere = usageXGroq } }

// NoUsage sends no usage at all, as some self-hosted servers do.
func NoUsage() Part { return func(b *replyBuilder) { b.usageWhere = usageNone } }

// ReasoningTokens reports n of the completion tokens as completion_tokens_details.reasoning_tokens.
func ReasoningTokens(n int) Part {
	return func(b *replyBuilder) { b.usage.Completed = &outDetails{Reasoning: n} }
}

// Reason streams text the way OpenRouter streams a thinking model: each word as
// delta.reasoning and, in the same delta, as a reasoning_details block
// {"type":"reasoning.text","text":…,"format":"unknown","index":0}.
func Reason(text string) Part {
	return func(b *replyBuilder) {
		for _, w := range words(text) {
			b.chunk(delta{ReasoningText: ptr(w), ReasoningDetails: []map[string]any{
				{"type": "reasoning.text", "text": w, "format": "unknown", "index": 0}}})
		}
	}
}

// ReasonPlain streams text as delta.reasoning only, with no reasoning_details.
func ReasonPlain(text string) Part {
	return func(b *replyBuilder) {
		for _, w := range words(text) {
			b.chunk(delta{ReasoningText: ptr(w)})
		}
	}
}

// Signature closes OpenRouter-style reasoning with a reasoning_details fragment that
// carries only a signature, as Anthropic models behind OpenRouter send it.
func Signature(sig string) Part {
	return func(b *replyBuilder) {
		b.chunk(delta{ReasoningDetails: []map[string]any{
			{"type": "reasoning.text", "signature": sig, "format": "anthropic-claude-v1", "index": 0}}})
	}
}

// CommentBytes writes n bytes (rounded up to whole lines) of SSE comment lines (": keep-alive"), generated as
// they are sent, so a test can send hundreds of megabytes without holding them.
func CommentBytes(n int64) Part { return addStep(step{kind: stepComments, n: n}, false) }

// Page is an HTTP-200 answer with an HTML page, what a website (not an API) sends to a
// POST: a base URL that points at the wrong place.
func Page(html string) Response {
	return Response{
		status: http.StatusOK,
		header: http.Header{"Content-Type": {"text/html; charset=utf-8"}},
		steps:  []step{{kind: stepWrite, data: []byte(html)}},
	}
}

// finishChunk writes the chunk with finish_reason and the usage, where the provider shape
// puts it.
func (b *replyBuilder) finishChunk(finish string) {
	c := chunk{ID: chunkID, Object: "chat.completion.chunk", Created: createdAt, Model: Model,
		Choices: []choice{{Delta: delta{}, FinishReason: &finish}}}
	switch b.usageWhere {
	case usageInChoice:
		c.Choices[0].Usage = &b.usage
	case usageXGroq:
		c.XGroq = &xGroq{ID: "req_scripted", Usage: &b.usage}
	}
	b.data(c)
	if b.usageWhere == usageChunk {
		b.data(chunk{ID: chunkID, Object: "chat.completion.chunk", Created: createdAt, Model: Model, Choices: []choice{}, Usage: &b.usage})
	}
}

// commentLine is what CommentBytes repeats.
var commentLine = strings.Repeat(": keep-alive\n\n", 4096)

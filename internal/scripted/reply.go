package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Chunk metadata used by the builders. Fixed values keep streams reproducible.
const (
	Model     = "kimi-k2-turbo-preview"
	chunkID   = "chatcmpl-scripted"
	createdAt = 1767225600 // 2026-01-01T00:00:00Z
	argPiece  = 6          // bytes of tool arguments per delta
)

// Part is one piece of a streamed assistant reply; see Reply.
type Part func(*replyBuilder)

// Say streams text as content deltas, one word (with its trailing space) per chunk.
func Say(text string) Part {
	return func(b *replyBuilder) {
		for _, w := range words(text) {
			b.chunk(delta{Content: ptr(w)})
		}
	}
}

// Think streams text as reasoning_content deltas, one word per chunk.
func Think(text string) Part {
	return func(b *replyBuilder) {
		for _, w := range words(text) {
			b.chunk(delta{Reasoning: w})
		}
	}
}

// Call streams a tool call: a first delta with index, id, type and name, then
// the arguments in pieces of a few bytes. Its id is derived from name,
// arguments and position, so it is the same on every run.
func Call(name, args string) Part { return CallID("", name, args) }

// CallID is Call with an explicit tool call id.
func CallID(id, name, args string) Part {
	return func(b *replyBuilder) {
		index, callID := b.calls, id
		b.calls++
		if callID == "" {
			h := fnv.New32a()
			fmt.Fprintf(h, "%s\x00%s\x00%d", name, args, index)
			callID = fmt.Sprintf("call_%08x", h.Sum32())
		}
		b.chunk(delta{ToolCalls: []toolDelta{{Index: index, ID: callID, Type: "function", Function: fnPayload{Name: name}}}})
		for _, piece := range pieces(args, argPiece) {
			b.chunk(delta{ToolCalls: []toolDelta{{Index: index, Function: fnPayload{Arguments: piece}}}})
		}
	}
}

// KeepAlive writes n SSE comment lines (": keep-alive"), each followed by a
// blank line, as proxies and providers do while a model is slow.
func KeepAlive(n int) Part { return Raw(strings.Repeat(": keep-alive\n\n", n)) }

// KeepAliveEvery writes a keep-alive comment every d, and nothing else, until the client
// goes away: a stream that stays open but makes no progress. Later parts are ignored.
func KeepAliveEvery(d time.Duration) Part { return addStep(step{kind: stepKeepAlive, d: d}, true) }

// Raw writes s to the stream verbatim (garbage, partial lines, a mid-stream
// "data: {\"error\":...}" line).
func Raw(s string) Part { return func(b *replyBuilder) { b.write([]byte(s)) } }

// Pause flushes what was written and stalls for d.
func Pause(d time.Duration) Part { return addStep(step{kind: stepSleep, d: d}, false) }

// Usage replaces the default token counts of the final usage chunk.
func Usage(prompt, completion, cached int) Part {
	return func(b *replyBuilder) {
		b.usage.Prompt, b.usage.Completion, b.usage.Total = prompt, completion, prompt+completion
		if b.usage.CachedTop != nil {
			b.usage.CachedTop = &cached
		} else {
			b.usage.Details = &usageDetails{Cached: cached}
		}
	}
}

// Finish sets the reply's finish_reason, e.g. "length" for a reply cut at the completion
// token limit. Without it the reply finishes with "tool_calls" or "stop".
func Finish(reason string) Part { return func(b *replyBuilder) { b.finish = reason } }

// Cut flushes and drops the connection abruptly: no finish_reason, no usage, no
// [DONE], and the client reads an unexpected EOF. Later parts are ignored.
func Cut() Part { return addStep(step{kind: stepCut}, true) }

// End finishes the body cleanly at this point, without finish_reason or
// [DONE]; the client reads a plain EOF. Later parts are ignored.
func End() Part { return addStep(step{kind: stepEnd}, true) }

// Hang flushes and then sends nothing until the client goes away. Later parts
// are ignored.
func Hang() Part { return addStep(step{kind: stepHang}, true) }

func addStep(st step, final bool) Part {
	return func(b *replyBuilder) {
		b.steps = append(b.steps, st)
		b.stopped = final
	}
}

// Text is a complete streamed answer: Reply(Say(s)).
func Text(s string) Response { return Reply(Say(s)) }

// ToolCalls is a complete streamed reply carrying the given calls (built with
// Call or CallID) and finish_reason "tool_calls".
func ToolCalls(calls ...Part) Response { return Reply(calls...) }

// Reply streams an assistant message made of parts, in order: a role chunk, the
// parts, a chunk with finish_reason (as set by Finish, else "tool_calls" if any
// Call was given, else "stop"), a usage chunk with empty choices, and data: [DONE].
func Reply(parts ...Part) Response {
	b := replyBuilder{usage: usage{Prompt: 100, Completion: 20, Total: 120, Details: &usageDetails{}}}
	b.chunk(delta{Role: "assistant", Content: ptr("")})
	for _, p := range parts {
		if p(&b); b.stopped {
			return b.response()
		}
	}
	finish := "stop"
	if b.calls > 0 {
		finish = "tool_calls"
	}
	if b.finish != "" {
		finish = b.finish
	}
	b.finishChunk(finish)
	b.write([]byte("data: [DONE]\n\n"))
	return b.response()
}

// The wire shapes of a streamed chunk, written the way providers do.
type chunk struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   *usage   `json:"usage,omitempty"`
	XGroq   *xGroq   `json:"x_groq,omitempty"`
}

type xGroq struct {
	ID    string `json:"id"`
	Usage *usage `json:"usage,omitempty"`
}

type choice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
	Usage        *usage  `json:"usage,omitempty"`
}

type delta struct {
	Role             string           `json:"role,omitempty"`
	Content          *string          `json:"content,omitempty"`
	Reasoning        string           `json:"reasoning_content,omitempty"`
	ReasoningText    *string          `json:"reasoning,omitempty"`
	ReasoningDetails []map[string]any `json:"reasoning_details,omitempty"`
	ToolCalls        []toolDelta      `json:"tool_calls,omitempty"`
}

type toolDelta struct {
	Index    int       `json:"index"`
	ID       string    `json:"id,omitempty"`
	Type     string    `json:"type,omitempty"`
	Function fnPayload `json:"function"`
}

type fnPayload struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type usage struct {
	Prompt     int           `json:"prompt_tokens"`
	Completion int           `json:"completion_tokens"`
	Total      int           `json:"total_tokens"`
	CachedTop  *int          `json:"cached_tokens,omitempty"`
	Details    *usageDetails `json:"prompt_tokens_details,omitempty"`
	Completed  *outDetails   `json:"completion_tokens_details,omitempty"`
}

type outDetails struct {
	Reasoning int `json:"reasoning_tokens"`
}

type usageDetails struct {
	Cached int `json:"cached_tokens"`
}

type replyBuilder struct {
	steps      []step
	usageWhere usageWhere
	calls      int // tool calls so far, the index of the next one
	usage      usage
	stopped    bool   // a Cut, End or Hang ended the body
	finish     string // a finish_reason set by Finish
}

func (b *replyBuilder) write(p []byte) {
	if len(p) > 0 {
		b.steps = append(b.steps, step{kind: stepWrite, data: p})
	}
}

func (b *replyBuilder) data(c chunk) {
	var buf bytes.Buffer
	buf.WriteString("data: ")
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // providers send < and > as is
	if err := enc.Encode(c); err != nil {
		panic(fmt.Sprintf("scripted: encode chunk: %v", err)) // fixed types cannot fail
	}
	buf.WriteString("\n") // Encode ended the line; this blank line ends the event
	b.write(buf.Bytes())
}

func (b *replyBuilder) chunk(d delta) {
	b.data(chunk{ID: chunkID, Object: "chat.completion.chunk", Created: createdAt, Model: Model,
		Choices: []choice{{Delta: d}}})
}

func (b *replyBuilder) response() Response {
	return Response{
		status: http.StatusOK,
		header: http.Header{"Content-Type": {"text/event-stream"}, "Cache-Control": {"no-cache"}},
		steps:  b.steps,
	}
}

func ptr(s string) *string { return &s }

// words splits s after each space, the way tokens tend to arrive.
func words(s string) []string {
	var out []string
	for _, w := range strings.SplitAfter(s, " ") {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// pieces splits s into chunks of about size bytes without breaking a rune.
func pieces(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		n := min(size, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

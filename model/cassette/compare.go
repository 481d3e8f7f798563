package cassette

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// What a strict replay compares, and what it leaves out:
//
//   - the conversation: every message's role, content and reasoning, the assistant's tool
//     calls (name and arguments, compared as JSON) and which call a tool result answers.
//
// Left out: the text of tool results (the world's output, not the model's: `go test`
// prints its timings, `date` the time; an exact replay compares it too), the system
// prompt's text (it holds the date, the work dir's listing, the OS and AGENTS.md, which
// differ from one machine or day to the next), the tools offered (a newer kimi-run may
// offer more), tool call ids (renumbered in order of appearance), the model name and
// request options such as max_completion_tokens. The recording's work dir is replaced by
// the replay's wherever it appears.

// workDirToken stands for the work directory in compared text.
const workDirToken = "$WORK_DIR"

// shape is the part of a chat-completions request that a strict replay compares.
type shape struct {
	invalid string
	msgs    []msgShape
}

type msgShape struct {
	role      string
	content   string
	reasoning string
	calls     []string // name + canonical arguments
	callNames []string
	callID    string // renumbered
	tool      string // for a tool message: the name of the call it answers
}

// Message is one message of a request body as a strict replay compares it, whatever the
// wire protocol: a chat-completions message.
type Message struct {
	Role string `json:"role"`
	// Content is the JSON of the message's content: a string, or a list of parts.
	Content    json.RawMessage `json:"content"`
	Reasoning  string          `json:"reasoning_content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []Call          `json:"tool_calls"`
}

// Call is a tool call of an assistant message, as chat completions send it.
type Call struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Reader reads a request body of one wire protocol as its conversation (each protocol's
// package has one; model/protocols names it by the cassette's provider).
type Reader func(body []byte) ([]Message, error)

// ReadChat reads a chat-completions request body, as go-openai writes it.
func ReadChat(body []byte) ([]Message, error) {
	var w struct {
		Messages []Message `json:"messages"`
	}
	err := json.Unmarshal(body, &w)
	return w.Messages, err
}

func newShape(read Reader, body []byte, workDir string, sc scrubber) shape {
	msgs, err := read(sc.bytes(body))
	if err != nil {
		return shape{invalid: err.Error()}
	}
	norm := func(s string) string {
		if workDir != "" && workDir != "/" {
			s = strings.ReplaceAll(s, workDir, workDirToken)
		}
		return s
	}
	ids := map[string]string{}
	names := map[string]string{}
	renumber := func(id string) string {
		if id == "" {
			return ""
		}
		if n, ok := ids[id]; ok {
			return n
		}
		n := fmt.Sprintf("#%d", len(ids)+1)
		ids[id] = n
		return n
	}
	var s shape
	for _, m := range msgs {
		ms := msgShape{role: m.Role, reasoning: norm(m.Reasoning)}
		if m.Role != "system" {
			ms.content = norm(contentText(m.Content))
		}
		for _, c := range m.ToolCalls {
			id := renumber(c.ID)
			names[id] = c.Function.Name
			ms.callNames = append(ms.callNames, c.Function.Name)
			ms.calls = append(ms.calls, c.Function.Name+" "+norm(canonicalJSON(c.Function.Arguments)))
		}
		if m.ToolCallID != "" {
			ms.callID = renumber(m.ToolCallID)
			ms.tool = names[ms.callID]
		}
		s.msgs = append(s.msgs, ms)
	}
	return s
}

// contentText is a message's content: a string, or the JSON of a list of parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return canonicalJSON(string(raw))
}

// canonicalJSON re-encodes JSON text with sorted keys, so key order and spacing do not
// count; text that is not JSON is kept as it is.
func canonicalJSON(s string) string {
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return s
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// difference is the first way a request differs from a recorded one.
type difference struct {
	detail string
	// toolOutput: what differs is the text of a tool result, which only an exact replay
	// compares.
	toolOutput bool
}

// diff describes the first way live differs from the recorded request r; detail is "" if
// none. Tool results' text counts only when exact is set.
func (r shape) diff(live shape, exact bool) difference {
	switch {
	case r.invalid != "" || live.invalid != "":
		if r.invalid != live.invalid {
			return difference{detail: fmt.Sprintf("request bodies are not comparable (recorded: %s; now: %s)", orOK(r.invalid), orOK(live.invalid))}
		}
		return difference{}
	}
	for i := range min(len(r.msgs), len(live.msgs)) {
		if d := r.msgs[i].diff(live.msgs[i], exact); d.detail != "" {
			d.detail = fmt.Sprintf("message %d (%s): %s", i+1, r.msgs[i].label(), d.detail)
			return d
		}
	}
	if len(r.msgs) != len(live.msgs) {
		return difference{detail: fmt.Sprintf("the request has %d messages, the recording %d", len(live.msgs), len(r.msgs))}
	}
	return difference{}
}

func orOK(s string) string {
	if s == "" {
		return "ok"
	}
	return s
}

func (m msgShape) label() string {
	switch {
	case m.role == "tool" && m.tool != "":
		return "the result of " + m.tool
	case m.role == "assistant" && len(m.callNames) > 0:
		return "assistant, calling " + strings.Join(m.callNames, ", ")
	}
	return m.role
}

func (m msgShape) diff(o msgShape, exact bool) difference {
	switch {
	case m.role != o.role:
		return difference{detail: fmt.Sprintf("role: recorded %s, now %s", m.role, o.role)}
	case m.content != o.content && (m.role != "tool" || exact):
		return difference{detail: "content: " + excerpt(m.content, o.content), toolOutput: m.role == "tool"}
	case !slices.Equal(m.calls, o.calls):
		return difference{detail: fmt.Sprintf("tool calls: recorded %q, now %q", m.calls, o.calls)}
	case m.callID != o.callID:
		return difference{detail: fmt.Sprintf("answers tool call %s, recorded %s", o.callID, m.callID)}
	case m.reasoning != o.reasoning:
		return difference{detail: "reasoning: " + excerpt(m.reasoning, o.reasoning)}
	}
	return difference{}
}

// excerpt shows where two texts part: a little context before the first difference and
// the next few dozen characters of each.
func excerpt(recorded, now string) string {
	k := 0
	for k < len(recorded) && k < len(now) && recorded[k] == now[k] {
		k++
	}
	from := max(0, k-30)
	clip := func(s string) string {
		if from > len(s) {
			return `""`
		}
		t := s[from:]
		if len(t) > 90 {
			t = t[:90] + "…"
		}
		q := fmt.Sprintf("%q", t)
		if from > 0 {
			q = "…" + q
		}
		return q
	}
	return fmt.Sprintf("recorded %s, now %s (from byte %d)", clip(recorded), clip(now), k+1)
}

package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/kimi-run/kimi-run/event"
)

// KimiOptions configures the Kimi sink.
type KimiOptions struct {
	// FinalOnly writes one assistant line per answer holding only its final text
	// (--final-message-only), instead of every message.
	FinalOnly bool
}

// Kimi writes Kimi CLI's print-mode message lines (--print --output-format stream-json):
// one chat message per line, an assistant message once its reply has fully streamed, then a
// tool message for each tool result as it finishes. Thinking is a think part of the
// assistant message; there are no deltas, no usage, no session id and no result line, as
// in Kimi CLI. Warnings, and the resume hint at the end, go to stderr: stdout never holds
// anything but message lines. Subagents' events are not written (Kimi CLI does not either).
// It is safe for concurrent use.
type Kimi struct {
	stdout, stderr io.Writer
	opts           KimiOptions

	mu    sync.Mutex
	done  bool  // the top-level result has arrived
	err   error // first stdout write error; nothing is written after it
	parts []kimiPart
	calls []kimiToolCall
	// replied: the current step's reply has fully streamed (its usage event came), so its
	// assistant message is written and tool results follow it at once.
	replied bool
	// waiting holds tool messages that finished before their step's reply was complete.
	waiting []kimiMessage
	// notes holds background tasks' notifications that came while an assistant message
	// was being put together: Kimi CLI writes them after it, never inside it.
	notes []event.Notification
	// answered: with FinalOnly, an answer event wrote the current prompt's final message.
	answered bool
	// promptBlocked: a UserPromptSubmit hook's reason was written as the answer.
	promptBlocked bool
}

// NewKimi returns a sink that writes Kimi CLI's message lines to stdout and warnings to
// stderr. Each line is written with one Write call.
func NewKimi(stdout, stderr io.Writer, opts KimiOptions) *Kimi {
	return &Kimi{stdout: stdout, stderr: stderr, opts: opts}
}

// kimiPart is one part of an assistant message: text or think, merged while the kind stays.
type kimiPart struct {
	think bool
	b     strings.Builder
}

type kimiTextPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type kimiThinkPart struct {
	Type      string  `json:"type"`
	Think     string  `json:"think"`
	Encrypted *string `json:"encrypted"` // always null: providers send no signature here
}

type kimiToolCall struct {
	Type     string       `json:"type"`
	ID       string       `json:"id"`
	Function kimiFunction `json:"function"`
}

type kimiFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// kimiMessage is one line, its keys in Kimi CLI's order. Content is a string when the
// message is one text part, otherwise a list of parts.
type kimiMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"`
	ToolCalls  []kimiToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// Emit takes one event. Only the main agent's events are written.
func (s *Kimi) Emit(e event.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || e.Parent != "" {
		return
	}
	switch d := e.Payload().(type) {
	case event.TurnBegin:
		s.answered = false
	case event.StepBegin:
		s.flush()
		s.replied = false
	case event.Text:
		s.add(false, d.Delta)
	case event.Thinking:
		s.add(true, d.Delta)
	case event.Retry:
		// The failed attempt's text starts again from the beginning; the notifications
		// that waited for it are written (Kimi CLI's StepRetry).
		s.parts, s.calls = nil, nil
		for _, n := range s.notes {
			s.writeLine("notification", n)
		}
		s.notes = nil
	case event.ToolCall:
		s.calls = append(s.calls, kimiToolCall{Type: "function", ID: d.ID,
			Function: kimiFunction{Name: d.Name, Arguments: rawArguments(d.Arguments)}})
	case event.Usage:
		// The reply has fully streamed, every tool call of it included.
		s.replied = true
		s.flush()
	case event.ToolResult:
		if s.opts.FinalOnly {
			return
		}
		m := kimiMessage{Role: "tool", Content: toolContent(d), ToolCallID: d.ID}
		if s.replied {
			s.write(m)
		} else {
			s.waiting = append(s.waiting, m)
		}
	case event.TurnEnd:
		s.flush()
	case event.Answer:
		s.flush()
		if s.opts.FinalOnly {
			s.final(d.FinalText)
			s.answered = true
		}
	case event.Hook:
		// Kimi CLI answers a prompt its UserPromptSubmit hook blocks with the hook's reason
		// as the turn's text (KimiSoul.run); the message line is the same here.
		if d.Event == "UserPromptSubmit" && d.Blocked && !s.promptBlocked {
			s.promptBlocked = true
			s.write(kimiMessage{Role: "assistant", Content: d.Reason})
			s.answered = true
		}
	case event.TaskEnded:
		// Kimi CLI's print mode writes a task's notification while its turns run, and at
		// its exit stops what is left without a word: a task the run's end stopped gets none.
		if s.opts.FinalOnly || d.StoppedBy == "run_end" {
			return
		}
		if len(s.parts) > 0 || len(s.calls) > 0 {
			s.notes = append(s.notes, d.Notification)
			return
		}
		s.flush()
		s.writeLine("notification", d.Notification)
	case event.Warning:
		fmt.Fprintf(s.stderr, "kimi-run: warning: %s\n", oneLine(d.Message, 2000))
	case event.Result:
		s.done = true
		s.flush()
		if s.opts.FinalOnly && !s.answered {
			s.final(d.FinalText)
		}
		if d.SessionID != "" {
			fmt.Fprintf(s.stderr, "To resume this session: kimi-run -r %s\n", d.SessionID)
		}
	}
}

// Err returns the first error met writing stdout, or nil.
func (s *Kimi) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Kimi) add(think bool, delta string) {
	if s.opts.FinalOnly || delta == "" {
		return
	}
	if n := len(s.parts); n == 0 || s.parts[n-1].think != think {
		s.parts = append(s.parts, kimiPart{think: think})
	}
	s.parts[len(s.parts)-1].b.WriteString(delta)
}

// flush writes the buffered assistant message, then the notifications that came while it
// was put together, then the tool messages that waited for it.
func (s *Kimi) flush() {
	if !s.opts.FinalOnly && (len(s.parts) > 0 || len(s.calls) > 0) {
		s.write(kimiMessage{Role: "assistant", Content: s.content(), ToolCalls: s.calls})
	}
	s.parts, s.calls = nil, nil
	for _, n := range s.notes {
		s.writeLine("notification", n)
	}
	s.notes = nil
	for _, m := range s.waiting {
		s.write(m)
	}
	s.waiting = nil
}

func (s *Kimi) content() any {
	if len(s.parts) == 1 && !s.parts[0].think {
		return s.parts[0].b.String()
	}
	out := make([]any, 0, len(s.parts))
	for i := range s.parts {
		p := &s.parts[i]
		if p.think {
			out = append(out, kimiThinkPart{Type: "think", Think: p.b.String()})
		} else {
			out = append(out, kimiTextPart{Type: "text", Text: p.b.String()})
		}
	}
	return out
}

// final writes the one assistant line of --final-message-only; nothing for an empty answer.
func (s *Kimi) final(text string) {
	if !s.opts.FinalOnly || strings.TrimSpace(text) == "" {
		return
	}
	s.write(kimiMessage{Role: "assistant", Content: text})
}

func (s *Kimi) write(m kimiMessage) { s.writeLine(m.Role+" message", m) }

// writeLine writes v as one line; what names it in an error.
func (s *Kimi) writeLine(what string, v any) {
	if s.err != nil {
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as Kimi CLI: code and <system> tags stay readable
	if err := enc.Encode(v); err != nil {
		s.err = fmt.Errorf("encode %s: %w", what, err)
		return
	}
	n, err := s.stdout.Write(b.Bytes())
	if err == nil && n < b.Len() {
		err = io.ErrShortWrite
	}
	if err != nil {
		s.err = fmt.Errorf("write %s: %w", what, err)
	}
}

// rawArguments returns a tool call's arguments as the model sent them: the JSON object's
// text, or the raw text the event keeps as a JSON string when it was not an object.
func rawArguments(args json.RawMessage) string {
	if t := bytes.TrimSpace(args); len(t) > 0 && t[0] == '"' {
		var s string
		if json.Unmarshal(t, &s) == nil {
			return s
		}
	}
	return string(args)
}

// toolContent renders a tool result as Kimi CLI's tool message content
// (soul/message.py, tool_result_to_message): the tool's message as <system>…</system>
// (<system>ERROR: …</system> for an error), then its output; <system>Tool output is
// empty.</system> when a success has neither. One part is written as a plain string, more
// as a list of text parts. Tools with Kimi CLI's wording (event.ToolResult.Kimi) give their
// message and output apart; for the others (MCP tools) an error's first line is the
// message and the rest the output, and a success is all output.
func toolContent(r event.ToolResult) any {
	var msg, out string
	switch {
	case r.Kimi != nil:
		msg, out = r.Kimi.Message, r.Kimi.Output
	case r.IsError:
		msg, out, _ = strings.Cut(strings.TrimLeft(strings.TrimPrefix(r.Output, "ERROR: "), "\r\n"), "\n")
		if strings.TrimSpace(out) == "" {
			out = ""
		}
	default:
		out = r.Output
		if strings.TrimSpace(out) == "" {
			out = ""
		}
	}
	var parts []kimiTextPart
	switch {
	case r.IsError:
		parts = append(parts, kimiTextPart{Type: "text", Text: "<system>ERROR: " + msg + "</system>"})
	case msg != "":
		parts = append(parts, kimiTextPart{Type: "text", Text: "<system>" + msg + "</system>"})
	}
	if out != "" {
		parts = append(parts, kimiTextPart{Type: "text", Text: out})
	}
	switch len(parts) {
	case 0:
		return "<system>Tool output is empty.</system>"
	case 1:
		return parts[0].Text
	}
	return parts
}

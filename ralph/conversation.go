package ralph

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/event"
)

// A conversation is the third way turns are driven, beside a flow and the Ralph loop: the
// user messages of an input (--input-format stream-json: Kimi CLI's
// {"role":"user","content":...}, one JSON object per line on stdin), each answered in
// order as one more turn of the same session, until the input ends.

// Message is one non-blank line of a conversation's input.
type Message struct {
	Line int    // line number, from 1
	Text string // the user message's text
	Bad  error  // why the line is not a user message; the line is skipped
	Read error  // reading the input failed; nothing follows
}

// ErrNoMessages means the input held no user message.
var ErrNoMessages = errors.New(`stdin held no user messages: with --input-format stream-json send {"role":"user","content":"..."} lines`)

// SkippedError means lines of the input were skipped (not user messages, or refused by
// Conversation.Plan) while every other message was answered.
type SkippedError struct {
	Count int
	First string // the first skipped line and why
}

func (e *SkippedError) Error() string {
	return fmt.Sprintf("%d stdin line(s) were not user messages and were skipped (first at %s); the other messages were answered", e.Count, e.First)
}

// Conversation answers the messages of a conversation; P is a message made ready to answer.
type Conversation[P any] struct {
	// Plan readies a message's text; an error skips the message like a line that is not a
	// user message.
	Plan func(ctx context.Context, text string) (P, error)
	// Answer answers a planned message and says whether the conversation goes on; when
	// not, err ends it.
	Answer func(ctx context.Context, p P) (finalText string, ok bool, err error)
	// Sink receives a warning for each skipped line and an answer event for each message
	// answered.
	Sink event.Sink
}

// Converse answers first, when not nil (its answer event says line 0), and then each message of in, in order, until in
// closes. A message whose answer does not go on ends the conversation with its error.
// Skipped lines are warned of as they come and, once in closes, make it a *SkippedError
// although every other message was answered; no message at all is ErrNoMessages.
func (c Conversation[P]) Converse(ctx context.Context, first *P, in <-chan Message) error {
	answered := 0
	var bad []string
	answer := func(p P, line int) (bool, error) {
		text, ok, err := c.Answer(ctx, p)
		if !ok {
			return false, err
		}
		answered++
		c.emit(event.Answer{Message: answered, Line: line, FinalText: text})
		return true, nil
	}
	if first != nil {
		if ok, err := answer(*first, 0); !ok {
			return err
		}
	}
	for in != nil {
		var m Message
		var open bool
		select {
		case m, open = <-in:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		if !open {
			break
		}
		if m.Read != nil {
			return fmt.Errorf("read stdin line %d: %w", m.Line, m.Read)
		}
		var p P
		err := m.Bad
		if err == nil {
			p, err = c.Plan(ctx, m.Text)
		}
		if err != nil {
			reason := fmt.Sprintf("line %d: %v", m.Line, err)
			bad = append(bad, reason)
			c.emit(event.Warning{Message: "stdin " + reason + "; skipped"})
			continue
		}
		if ok, err := answer(p, m.Line); !ok {
			return err
		}
	}
	switch {
	case len(bad) > 0:
		return &SkippedError{Count: len(bad), First: bad[0]}
	case answered == 0:
		return ErrNoMessages
	}
	return nil
}

func (c Conversation[P]) emit(p event.Payload) {
	if c.Sink != nil {
		c.Sink.Emit(event.Event{Time: time.Now(), Data: p})
	}
}

// ReadMessages sends each non-blank line of r, parsed, until EOF (then closes out) or until
// ctx ends. A line longer than limit bytes is not a message.
func ReadMessages(ctx context.Context, r io.Reader, limit int, out chan<- Message) {
	defer close(out)
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br, limit)
		var in Message
		switch {
		case err != nil && !errors.Is(err, io.EOF):
			in = Message{Line: n, Read: err}
		case tooLong:
			in = Message{Line: n, Bad: fmt.Errorf("longer than %d MiB", limit>>20)}
		case len(bytes.TrimSpace(line)) == 0:
			if errors.Is(err, io.EOF) {
				return
			}
			continue
		default:
			text, perr := userText(line)
			in = Message{Line: n, Text: text, Bad: perr}
		}
		select {
		case out <- in:
		case <-ctx.Done():
			return
		}
		if err != nil || in.Read != nil {
			return
		}
	}
}

// readLine reads up to the next newline. A line longer than limit is consumed whole but
// reported as too long rather than kept.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// userText returns the text of a Kimi CLI user message: {"role":"user","content":...} with
// content a string or a list of parts, whose text parts are joined with newlines (Kimi CLI
// drops the other parts, and so do we).
func userText(line []byte) (string, error) {
	var msg struct {
		Role    *string         `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(line, &msg); err != nil {
		return "", fmt.Errorf("not a JSON object: %v", err)
	}
	if msg.Role == nil || *msg.Role != "user" {
		role := "none"
		if msg.Role != nil {
			role = fmt.Sprintf("%q", *msg.Role)
		}
		return "", fmt.Errorf("role is %s; only user messages are answered", role)
	}
	var text string
	var str string
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	switch {
	case json.Unmarshal(msg.Content, &str) == nil:
		text = str
	case json.Unmarshal(msg.Content, &parts) == nil:
		var texts []string
		for i, p := range parts {
			if p.Type != "text" {
				continue
			}
			if p.Text == nil {
				return "", fmt.Errorf("content part %d is a text part without text", i+1)
			}
			texts = append(texts, *p.Text)
		}
		text = strings.Join(texts, "\n")
	default:
		return "", errors.New(`content must be a string or a list of {"type":"text","text":...} parts`)
	}
	if strings.TrimSpace(text) == "" {
		return "", errors.New("the message has no text")
	}
	return strings.TrimSpace(text), nil
}

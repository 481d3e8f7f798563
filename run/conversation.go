package run

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/ralph"
	"github.com/kimi-run/kimi-run/skills"
)

// conversation is --input-format stream-json: Kimi CLI user messages read from stdin, one
// JSON object per line, each answered as one more turn of the same conversation, in order,
// until stdin closes.
type conversation struct {
	// first is the prompt given with -p (or words, --prompt-file), answered before stdin is
	// read; empty when none was given.
	first string
	// lines delivers stdin's messages; nil when stdin is not a pipe or a file.
	lines <-chan inputLine
}

// inputLine is one non-blank line of stdin.
type inputLine struct {
	n    int    // line number, from 1
	text string // the user message's text
	bad  error  // why the line is not a user message; the line is skipped
	read error  // reading stdin failed; nothing follows
}

// openConversation reads the optional first prompt and starts reading stdin's messages. It
// never reads a terminal: there a first prompt is answered alone, and without one the run is
// a usage error.
func openConversation(ctx context.Context, s *config.Settings, stdin Stdin, warn func(string)) (*conversation, error) {
	c := &conversation{}
	if s.Prompt != "" || s.PromptGiven || len(s.Flags.Words) > 0 || s.Flags.PromptFile != "" {
		// stdin holds the messages, never context for the prompt.
		p, err := readPrompt(ctx, s, nil, false, warn)
		if err != nil {
			return c, err
		}
		c.first = p
	}
	switch stdinKind(stdin) {
	case stdinPipe, stdinFile:
		ch := make(chan inputLine)
		go readMessages(ctx, stdin, ch)
		c.lines = ch
	default:
		if c.first == "" {
			return c, usagef("--input-format stream-json reads user messages from stdin, but stdin is not a pipe or a file")
		}
	}
	return c, nil
}

// readMessages sends each non-blank line of r, parsed, until EOF (then closes out) or until
// ctx ends.
func readMessages(ctx context.Context, r io.Reader, out chan<- inputLine) {
	defer close(out)
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br, maxStdin)
		var in inputLine
		switch {
		case err != nil && !errors.Is(err, io.EOF):
			in = inputLine{n: n, read: err}
		case tooLong:
			in = inputLine{n: n, bad: fmt.Errorf("longer than %d MiB", maxStdin>>20)}
		case len(bytes.TrimSpace(line)) == 0:
			if errors.Is(err, io.EOF) {
				return
			}
			continue
		default:
			text, perr := userText(line)
			in = inputLine{n: n, text: text, bad: perr}
		}
		select {
		case out <- in:
		case <-ctx.Done():
			return
		}
		if err != nil || in.read != nil {
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

// messageRunner is what answering a message needs: each is planned (a usage error there,
// such as an unknown skill, skips the message like a bad line) and run like a prompt.
type messageRunner struct {
	s      *config.Settings
	skills *skills.Set
	agent  *agent.Agent
	sink   event.Sink
	// hooks runs the prompt and stop hooks around each message, as around a -p prompt.
	hooks *runHooks
	// warn reports re-asks for --json-schema.
	warn func(string)
}

// answer runs one planned message through the hooks.
func (m messageRunner) answer(ctx context.Context, p plan) (outcome, error) {
	return m.hooks.around(ctx, p.prompt, m.agent, func(t ralph.Turner) (outcome, error) {
		return runPlan(ctx, m.s, p, t, m.agent, m.sink, m.warn, nil)
	})
}

// run answers the first prompt (as first planned) and then each message of stdin, in order,
// in one conversation. A message whose run
// fails ends the conversation with that outcome; bad lines are reported as they come and,
// once stdin closes, make the run a usage error (exit 2) although every other message was
// answered.
func (c *conversation) run(ctx context.Context, r *runState, firstPlan plan, m messageRunner) (outcome, error) {
	var last outcome
	answered, iterations := 0, 0
	var bad []string
	// done records an answered message and says whether the conversation goes on.
	done := func(out outcome, err error, line int) bool {
		if out.flow {
			iterations += out.flowResult.Iterations
		}
		last = out
		if iterations > 0 {
			// The result counts the iterations of every message.
			last.flow = true
			last.flowResult.Iterations = iterations
		}
		if judge(out, err, context.Cause(ctx)).code != ExitOK {
			return false
		}
		answered++
		r.emit(event.Answer{Message: answered, Line: line, FinalText: out.finalText})
		return true
	}
	if c.first != "" {
		out, err := m.answer(ctx, firstPlan)
		if !done(out, err, 0) {
			return last, err
		}
	}
	for c.lines != nil {
		var in inputLine
		var ok bool
		select {
		case in, ok = <-c.lines:
		case <-ctx.Done():
			return last, context.Cause(ctx)
		}
		if !ok {
			break
		}
		if in.read != nil {
			return last, fmt.Errorf("read stdin line %d: %w", in.n, in.read)
		}
		p, err := plan{}, in.bad
		if err == nil {
			p, err = planRun(ctx, m.s, m.skills, in.text)
		}
		if err != nil {
			reason := fmt.Sprintf("line %d: %v", in.n, err)
			bad = append(bad, reason)
			r.emit(event.Warning{Message: "stdin " + reason + "; skipped"})
			continue
		}
		out, err := m.answer(ctx, p)
		if !done(out, err, in.n) {
			return last, err
		}
	}
	switch {
	case len(bad) > 0:
		return last, usagef("%d stdin line(s) were not user messages and were skipped (first at %s); the other messages were answered", len(bad), bad[0])
	case answered == 0:
		return last, usagef("stdin held no user messages: with --input-format stream-json send {\"role\":\"user\",\"content\":\"...\"} lines")
	}
	return last, nil
}

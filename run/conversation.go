package run

import (
	"context"
	"errors"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/infile"
	"github.com/kimi-run/kimi-run/ralph"
)

// conversation is --input-format stream-json: Kimi CLI user messages read from stdin, one
// JSON object per line, each answered as one more turn of the same conversation, in order,
// until stdin closes.
type conversation struct {
	// first is the prompt given with -p (or words, --prompt-file), answered before stdin is
	// read; empty when none was given.
	first string
	// lines delivers stdin's messages; nil when stdin is not a pipe or a file.
	lines <-chan ralph.Message
}

// openConversation reads the optional first prompt and starts reading stdin's messages. It
// never reads a terminal: there a first prompt is answered alone, and without one the run is
// a usage error.
func openConversation(ctx context.Context, s *config.Settings, stdin infile.Stdin, warn func(string)) (*conversation, error) {
	c := &conversation{}
	if s.Prompt != "" || s.PromptGiven || len(s.Flags.Words) > 0 || s.Flags.PromptFile != "" {
		// stdin holds the messages, never context for the prompt.
		p, err := readPrompt(ctx, s, nil, false, warn)
		if err != nil {
			return c, err
		}
		c.first = p
	}
	switch infile.KindOf(stdin) {
	case infile.StdinPipe, infile.StdinFile:
		ch := make(chan ralph.Message)
		go ralph.ReadMessages(ctx, stdin, infile.StdinMax, ch)
		c.lines = ch
	default:
		if c.first == "" {
			return c, usagef("--input-format stream-json reads user messages from stdin, but stdin is not a pipe or a file")
		}
	}
	return c, nil
}

// run answers the first prompt (as first planned) and then each message of stdin, in order,
// in one conversation (ralph.Conversation): each is planned (a usage error there, such as
// an unknown skill, skips the message like a bad line) and answered like a prompt. Lines
// that are not user messages, and stdin without any, make the run a usage error (exit 2)
// although every other message was answered.
func (c *conversation) run(ctx context.Context, sink event.Sink, firstPlan plan, planFor func(context.Context, string) (plan, error),
	answer func(plan) (outcome, error)) (outcome, error) {
	var last outcome
	iterations := 0
	conv := ralph.Conversation[plan]{
		Plan: planFor,
		Answer: func(ctx context.Context, p plan) (string, bool, error) {
			out, err := answer(p)
			if out.flow {
				iterations += out.flowResult.Iterations
			}
			last = out
			if iterations > 0 {
				// The result counts the iterations of every message.
				last.flow = true
				last.flowResult.Iterations = iterations
			}
			return out.finalText, judge(out, err, context.Cause(ctx)).code == ExitOK, err
		},
		Sink: sink,
	}
	var first *plan
	if c.first != "" {
		first = &firstPlan
	}
	err := conv.Converse(ctx, first, c.lines)
	if _, skipped := errors.AsType[*ralph.SkippedError](err); skipped || errors.Is(err, ralph.ErrNoMessages) {
		err = usagef("%w", err)
	}
	return last, err
}

package output

import (
	"bytes"
	"testing"

	"github.com/kimi-run/kimi-run/event"
)

// Each answer of a conversation (--input-format stream-json) reaches stdout when it is
// given; the result does not repeat it, but a later turn that fails still shows its text.
func TestTextAnswers(t *testing.T) {
	tests := []struct {
		name   string
		events func(c *clock) []event.Event
		stdout string
	}{
		{name: "every answer once", stdout: "one\ntwo\n", events: func(c *clock) []event.Event {
			return []event.Event{
				c.ev(event.TurnBegin{Turn: 1}),
				c.ev(event.Answer{Message: 1, Line: 1, FinalText: "one"}),
				c.ev(event.TurnBegin{Turn: 2}),
				c.ev(event.Answer{Message: 2, Line: 2, FinalText: "two\n"}),
				c.ev(event.Result{Status: "success", FinalText: "two\n"}),
			}
		}},
		{name: "a failed last turn", stdout: "one\npartial\n", events: func(c *clock) []event.Event {
			return []event.Event{
				c.ev(event.TurnBegin{Turn: 1}),
				c.ev(event.Answer{Message: 1, Line: 1, FinalText: "one"}),
				c.ev(event.TurnBegin{Turn: 2}),
				c.ev(event.Result{Status: "error", TerminalReason: "max_steps", ExitCode: 3, FinalText: "partial"}),
			}
		}},
		{name: "a subagent's turns change nothing", stdout: "one\n", events: func(c *clock) []event.Event {
			return []event.Event{
				c.ev(event.Answer{Message: 1, FinalText: "one"}),
				c.sub("t1", event.TurnBegin{Turn: 1}),
				c.ev(event.Result{Status: "success", FinalText: "one"}),
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			s := NewText(&stdout, &stderr, TextOptions{Quiet: true})
			for _, e := range tt.events(newClock()) {
				s.Emit(e)
			}
			if stdout.String() != tt.stdout {
				t.Errorf("stdout = %q, want %q", stdout.String(), tt.stdout)
			}
		})
	}
}

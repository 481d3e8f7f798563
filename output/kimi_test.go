package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/event"
)

func TestKimiGolden(t *testing.T) {
	for name, events := range scenarios {
		for _, final := range []bool{false, true} {
			suffix := ".kimi"
			if final {
				suffix = ".kimi-final"
			}
			t.Run(name+suffix, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				s := NewKimi(&stdout, &stderr, KimiOptions{FinalOnly: final})
				for _, e := range events() {
					s.Emit(e)
				}
				if err := s.Err(); err != nil {
					t.Fatal(err)
				}
				for _, l := range kimiRoles(t, stdout.String()) {
					if final && l != "assistant" {
						t.Errorf("final-only wrote a %s line", l)
					}
				}
				golden(t, name+suffix+".jsonl", stdout.Bytes())
				golden(t, name+suffix+".stderr", stderr.Bytes())
			})
		}
	}
}

// kimiRoles checks every line is a message whose first key is role, or a background task's
// notification (whose first key is id), and returns the roles ("notification" for those).
func kimiRoles(t *testing.T, out string) []string {
	t.Helper()
	var roles []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		var m struct {
			Role string `json:"role"`
		}
		if strings.HasPrefix(l, `{"id":"n`) && json.Unmarshal([]byte(l), &m) == nil {
			roles = append(roles, "notification")
			continue
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || !strings.HasPrefix(l, `{"role":"`) {
			t.Fatalf("not a Kimi message line: %q (%v)", l, err)
		}
		roles = append(roles, m.Role)
	}
	return roles
}

func TestKimiToolResultsFollowTheirAssistantMessage(t *testing.T) {
	c := newClock()
	var stdout, stderr bytes.Buffer
	s := NewKimi(&stdout, &stderr, KimiOptions{})
	for _, e := range []event.Event{
		c.ev(event.StepBegin{Turn: 1, Step: 1}),
		c.ev(event.ToolCall{Step: 1, ID: "a", Name: "Shell", Arguments: json.RawMessage(`{"command":"true"}`)}),
		// The first call finishes while the reply still streams its text and a second call.
		c.ev(event.ToolResult{Step: 1, ID: "a", Name: "Shell", Output: ""}),
		c.ev(event.Text{Step: 1, Delta: "Two checks."}),
		c.ev(event.ToolCall{Step: 1, ID: "b", Name: "Bad", Arguments: json.RawMessage(`"{not json"`)}),
		c.ev(event.Usage{Step: 1}),
		c.ev(event.ToolResult{Step: 1, ID: "b", Name: "Bad", IsError: true, Output: "ERROR: not run: the arguments are not a JSON object"}),
		c.ev(event.StepBegin{Turn: 1, Step: 2}),
		c.ev(event.Text{Step: 2, Delta: "half"}),
		c.ev(event.Retry{Step: 2, Attempt: 1}),
		c.ev(event.Text{Step: 2, Delta: "Whole."}),
		c.ev(event.Usage{Step: 2}),
		c.ev(event.Result{Status: "success", FinalText: "Whole."}),
	} {
		s.Emit(e)
	}
	want := `{"role":"assistant","content":"Two checks.","tool_calls":[{"type":"function","id":"a","function":{"name":"Shell","arguments":"{\"command\":\"true\"}"}},{"type":"function","id":"b","function":{"name":"Bad","arguments":"{not json"}}]}
{"role":"tool","content":"<system>Tool output is empty.</system>","tool_call_id":"a"}
{"role":"tool","content":"<system>ERROR: not run: the arguments are not a JSON object</system>","tool_call_id":"b"}
{"role":"assistant","content":"Whole."}
`
	if stdout.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), want)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr = %q", stderr.String())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestKimiWriteError(t *testing.T) {
	c := newClock()
	var stderr bytes.Buffer
	s := NewKimi(failWriter{}, &stderr, KimiOptions{})
	s.Emit(c.ev(event.Text{Step: 1, Delta: "x"}))
	s.Emit(c.ev(event.Result{Status: "success"}))
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("Err() = %v", err)
	}
}

package output

import (
	"encoding/json"
	"testing"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

func TestNeutralize(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain\ttext\nline", "plain\ttext\nline"},
		{"crlf\r\nend", "crlf\r\nend"},
		{"\x1b]0;pwned\x07title", `\x1b]0;pwned\x07title`},
		{"\x1b[2J\x1b[1;1Hclear", `\x1b[2J\x1b[1;1Hclear`},
		{"over\rwrite", `over\x0dwrite`},
		{"c1 \u009b31m csi", `c1 \u009b31m csi`},
		{"del\x7f", `del\x7f`},
		{"héllo ✓", "héllo ✓"},
	}
	for _, tt := range tests {
		if got := Neutralize(tt.in); got != tt.want {
			t.Errorf("Neutralize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTerminalSafeSink(t *testing.T) {
	t.Parallel()
	var rec testkit.Recorder
	s := terminalSafe{&rec}
	s.Emit(event.Event{Data: event.ToolResult{ID: "c1", Output: "a\x1b[31mred"}})
	s.Emit(event.Event{Data: &event.ToolCall{ID: "c2", Arguments: json.RawMessage(`{"command":"printf '\u001b[2J'"}`)}})
	s.Emit(event.Event{Data: event.Result{FinalText: "answer\x1b[0m", Error: &event.ErrorInfo{Message: "bad\x1bthing"}}})
	evs := rec.Events()
	if got := evs[0].Data.(event.ToolResult).Output; got != `a\x1b[31mred` {
		t.Errorf("tool output = %q", got)
	}
	var args map[string]string
	json.Unmarshal(evs[1].Data.(*event.ToolCall).Arguments, &args)
	if got := args["command"]; got != `printf '\x1b[2J'` {
		t.Errorf("command = %q", got)
	}
	res := evs[2].Data.(event.Result)
	if res.FinalText != "answer\x1b[0m" || res.Error.Message != `bad\x1bthing` {
		t.Errorf("result: final text %q (want it unchanged), error %q", res.FinalText, res.Error.Message)
	}
}

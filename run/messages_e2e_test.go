package run_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestClosingLineSaysItOnce: the line a failed run ends with says why once, not the reason
// and then the same reason again in other words.
func TestClosingLineSaysItOnce(t *testing.T) {
	t.Parallel()
	shell := scripted.ToolCalls(scripted.Call("Shell", `{"command":"true"}`)).Forever()
	tests := []struct {
		name   string
		script []scripted.Response
		args   []string
		code   int
		phrase string // must appear exactly once in the closing line
	}{
		{name: "step limit", script: []scripted.Response{shell}, args: []string{"--max-steps", "2"}, code: 3, phrase: "step limit"},
		{name: "loop guard", script: []scripted.Response{shell}, code: 3, phrase: "repeating"},
		{name: "ralph budget", script: []scripted.Response{scripted.Text("a"), scripted.Text("<choice>CONTINUE</choice>")}, args: []string{"--ralph", "1"}, code: 4, phrase: "budget"},
		{name: "timeout", script: []scripted.Response{scripted.Reply(scripted.Say("hm"), scripted.Hang())}, args: []string{"--timeout", "300ms"}, code: 124, phrase: "time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, tt.script...)
			r := kimi(t, srv, invocation{args: append([]string{"-p", "go"}, tt.args...)})
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			line := regexp.MustCompile(`(?m)^ERR .*$`).FindString(r.stderr)
			msg, _, _ := strings.Cut(line, " reason=")
			if n := strings.Count(strings.ToLower(msg), tt.phrase); n != 1 {
				t.Errorf("closing line says %q %d times: %q", tt.phrase, n, msg)
			}
		})
	}
}

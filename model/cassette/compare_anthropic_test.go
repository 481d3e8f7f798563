package cassette_test

import (
	"github.com/kimi-run/kimi-run/model/anthropic"
	"github.com/kimi-run/kimi-run/model/cassette"
	"strings"
	"testing"
)

// A strict replay of an anthropic run compares its conversation as it does a
// chat-completions one: the turns, thinking text, the calls and which call each result
// answers; not the system text, signatures or cache breakpoints; tool output only when
// exact.
func TestAnthropicShapeDiff(t *testing.T) {
	body := func(sys, user, sig, thought, input, output string) []byte {
		return []byte(`{"model":"claude-x","max_tokens":32000,"system":[{"type":"text","text":"` + sys + `","cache_control":{"type":"ephemeral"}}],"messages":[` +
			`{"role":"user","content":[{"type":"text","text":"` + user + `"}]},` +
			`{"role":"assistant","content":[{"type":"thinking","thinking":"` + thought + `","signature":"` + sig + `"},{"type":"text","text":"Looking."},{"type":"tool_use","id":"toolu_1","name":"Shell","input":` + input + `}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"` + output + `"},{"type":"text","text":"go on","cache_control":{"type":"ephemeral"}}]}],"stream":true}`)
	}
	rec := body("today", "list", "c2ln", "plan", `{"command":"ls"}`, "a.go")
	if msgs, err := anthropic.ReadRequest(rec); len(msgs) != 5 {
		t.Fatalf("read %d messages: %+v, %v", len(msgs), msgs, err)
	}
	for _, tt := range []struct {
		name  string
		live  []byte
		exact bool
		want  string
	}{
		{name: "same, other system text and signature", live: body("tomorrow", "list", "b3RoZXI=", "plan", `{ "command": "ls" }`, "a.go")},
		{name: "tool output", live: body("today", "list", "c2ln", "plan", `{"command":"ls"}`, "b.go")},
		{name: "tool output, exact", exact: true, live: body("today", "list", "c2ln", "plan", `{"command":"ls"}`, "b.go"), want: "message 4 (the result of Shell): content"},
		{name: "user text", live: body("today", "count", "c2ln", "plan", `{"command":"ls"}`, "a.go"), want: `message 2 (user): content: recorded "list", now "count"`},
		{name: "call input", live: body("today", "list", "c2ln", "plan", `{"command":"rm -rf /"}`, "a.go"), want: "message 3 (assistant, calling Shell): tool calls"},
		{name: "thinking", live: body("today", "list", "c2ln", "other plan", `{"command":"ls"}`, "a.go"), want: "message 3 (assistant, calling Shell): reasoning"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := cassette.ShapeDiff(anthropic.ReadRequest, rec, tt.live, tt.exact)
			if tt.want == "" && d != "" || !strings.Contains(d, tt.want) {
				t.Errorf("diff = %q, want %q", d, tt.want)
			}
		})
	}
}

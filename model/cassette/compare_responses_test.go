package cassette_test

import (
	"github.com/kimi-run/kimi-run/model/cassette"
	"github.com/kimi-run/kimi-run/model/responses"
	"strings"
	"testing"
)

// A strict replay of a Responses API run compares its conversation as it does a
// chat-completions one: the turns, the calls, which call each result answers and the
// reasoning summaries, not the system message's text nor the encrypted reasoning; tool
// output only when exact.
func TestResponsesShapeDiff(t *testing.T) {
	body := func(sys, user, enc, summary, args, output string) []byte {
		return []byte(`{"model":"gpt-5","store":false,"input":[{"role":"system","content":"` + sys + `"},` +
			`{"role":"user","content":"` + user + `"},` +
			`{"type":"reasoning","summary":[{"type":"summary_text","text":"` + summary + `"}],"encrypted_content":"` + enc + `"},` +
			`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Looking.","annotations":[]}]},` +
			`{"type":"function_call","call_id":"c1","name":"Shell","arguments":` + args + `},` +
			`{"type":"function_call_output","call_id":"c1","output":"` + output + `"}]}`)
	}
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
	rec := body("today", "list", "E1", "think", q(`{"command":"ls"}`), "a.go")
	for _, tt := range []struct {
		name  string
		live  []byte
		exact bool
		want  string
	}{
		{name: "same, other system text and encryption", live: body("tomorrow", "list", "E2", "think", q(`{ "command": "ls" }`), "a.go")},
		{name: "tool output", live: body("today", "list", "E1", "think", q(`{"command":"ls"}`), "b.go")},
		{name: "tool output, exact", exact: true, live: body("today", "list", "E1", "think", q(`{"command":"ls"}`), "b.go"), want: "message 4 (the result of Shell): content"},
		{name: "user text", live: body("today", "count", "E1", "think", q(`{"command":"ls"}`), "a.go"), want: `message 2 (user): content: recorded "list", now "count"`},
		{name: "reasoning", live: body("today", "list", "E1", "other", q(`{"command":"ls"}`), "a.go"), want: "message 3 (assistant, calling Shell): reasoning"},
		{name: "call arguments", live: body("today", "list", "E1", "think", q(`{"command":"rm -rf /"}`), "a.go"), want: "message 3 (assistant, calling Shell): tool calls"},
		{name: "one string input", live: []byte(`{"input":"list"}`), want: "message 1 (system): role: recorded system, now user"},
		{name: "not JSON", live: []byte(`{"input":`), want: "not comparable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := cassette.ShapeDiff(responses.ReadRequest, rec, tt.live, tt.exact)
			if tt.want == "" && d != "" || !strings.Contains(d, tt.want) {
				t.Errorf("diff = %q, want %q", d, tt.want)
			}
		})
	}
}

package cassette_test

import (
	"github.com/kimi-run/kimi-run/model/cassette"
	"github.com/kimi-run/kimi-run/model/gemini"
	"strings"
	"testing"
)

// A strict replay of a Gemini run compares its conversation as it does a chat-completions
// one: the turns, the calls and which call each result answers, not the system
// instruction nor the signatures; tool output only when exact.
func TestGeminiShapeDiff(t *testing.T) {
	body := func(sys, user, sig, args, output string) []byte {
		return []byte(`{"systemInstruction":{"parts":[{"text":"` + sys + `"}]},"contents":[` +
			`{"role":"user","parts":[{"text":"` + user + `"}]},` +
			`{"role":"model","parts":[{"text":"Looking.","thoughtSignature":"` + sig + `"},{"functionCall":{"id":"g1","name":"Shell","args":` + args + `}}]},` +
			`{"role":"user","parts":[{"functionResponse":{"id":"g1","name":"Shell","response":{"output":"` + output + `"}}}]}],` +
			`"tools":[{"functionDeclarations":[{"name":"Shell"}]}]}`)
	}
	rec := body("today", "list", "c2ln", `{"command":"ls"}`, "a.go")
	for _, tt := range []struct {
		name  string
		live  []byte
		exact bool
		want  string
	}{
		{name: "same, other system text and signature", live: body("tomorrow", "list", "b3RoZXI=", `{ "command": "ls" }`, "a.go")},
		{name: "tool output", live: body("today", "list", "c2ln", `{"command":"ls"}`, "b.go")},
		{name: "tool output, exact", exact: true, live: body("today", "list", "c2ln", `{"command":"ls"}`, "b.go"), want: "message 4 (the result of Shell): content"},
		{name: "user text", live: body("today", "count", "c2ln", `{"command":"ls"}`, "a.go"), want: `message 2 (user): content: recorded "list", now "count"`},
		{name: "call arguments", live: body("today", "list", "c2ln", `{"command":"rm -rf /"}`, "a.go"), want: "message 3 (assistant, calling Shell): tool calls"},
		{name: "not JSON", live: []byte(`{"contents":`), want: "not comparable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := cassette.ShapeDiff(gemini.ReadRequest, rec, tt.live, tt.exact)
			if tt.want == "" && d != "" || !strings.Contains(d, tt.want) {
				t.Errorf("diff = %q, want %q", d, tt.want)
			}
		})
	}
}

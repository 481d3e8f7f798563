package hooks

import "testing"

// Around says which tools' calls a hook runs around (the run starts the launcher early for
// them): a tool hook whose matcher matches the tool or one of its aliases, any tool for an
// empty matcher, never for hooks of other events.
func TestAround(t *testing.T) {
	cases := []struct {
		name  string
		hooks []Hook
		tool  string
		want  bool
	}{
		{"pre, matched", []Hook{{Event: PreToolUse, Matcher: "^Shell$", Command: "true"}}, "Shell", true},
		{"pre, not matched", []Hook{{Event: PreToolUse, Matcher: "^Shell$", Command: "true"}}, "ReadFile", false},
		{"post, empty matcher", []Hook{{Event: PostToolUse, Command: "true"}}, "ReadFile", true},
		{"failure", []Hook{{Event: PostToolUseFailure, Matcher: "Read", Command: "true"}}, "ReadFile", true},
		{"an alias", []Hook{{Event: PreToolUse, Matcher: "^Task$", Command: "true"}}, "Agent", true},
		{"other events only", []Hook{{Event: SessionStart, Command: "true"}, {Event: Stop, Command: "true"}}, "Shell", false},
	}
	for _, tt := range cases {
		e, err := New(tt.hooks)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Around(tt.tool); got != tt.want {
			t.Errorf("%s: Around(%q) = %v, want %v", tt.name, tt.tool, got, tt.want)
		}
	}
	var none *Engine
	if none.Around("Shell") {
		t.Error("a nil engine runs hooks around Shell")
	}
}

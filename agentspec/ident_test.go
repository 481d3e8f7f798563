package agentspec

import "testing"

func TestIsIdent(t *testing.T) {
	for s, want := range map[string]bool{
		"x": true, "_": true, "KIMI_WORK_DIR": true, "a1": true, "_9": true,
		"": false, "1a": false, "a-b": false, "a.b": false, "é": false, "a b": false,
	} {
		if got := isIdent(s); got != want {
			t.Errorf("isIdent(%q) = %v, want %v", s, got, want)
		}
	}
}

package ralph

import "testing"

func TestParseChoice(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		want  string
		found bool
	}{
		{"plain", "<choice>STOP</choice>", "STOP", true},
		{"no tag", "I am done.", "", false},
		{"last wins", "Either <choice>CONTINUE</choice> or <choice>STOP</choice>.", "STOP", true},
		{"last wins even when empty", "<choice>STOP</choice> then <choice> </choice>", "", true},
		{"trimmed", "<choice>\n  STOP \t</choice>", "STOP", true},
		{"case is kept", "<choice>stop</choice>", "stop", true},
		{"tags are case-sensitive", "<CHOICE>STOP</CHOICE>", "", false},
		{"inner spaces kept", "<choice>go on</choice>", "go on", true},
		{"nested opening tag", "<choice><choice>STOP</choice>", "STOP", true},
		{"markup inside does not count", "<choice>ST<b>OP</b></choice>", "", false},
		{"markup inside the last tag falls back to an earlier one",
			"<choice>CONTINUE</choice> <choice>S<i>TOP</choice>", "CONTINUE", true},
		{"unclosed", "<choice>STOP", "", false},
		{"closing before opening", "</choice>STOP<choice>", "", false},
		{"inside a code block still counts", "```\n<choice>STOP</choice>\n```", "STOP", true},
		{"unicode", "<choice>ÉTAPE 2</choice>", "ÉTAPE 2", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := ParseChoice(tt.text)
			if got != tt.want || found != tt.found {
				t.Errorf("ParseChoice(%q) = %q, %v; want %q, %v", tt.text, got, found, tt.want, tt.found)
			}
		})
	}
}

func TestStripChoice(t *testing.T) {
	tests := []struct{ text, want string }{
		{"All green.\n\n<choice>STOP</choice>", "All green."},
		{"<choice>a</choice> middle <choice>\nb\n</choice> end", "middle  end"},
		{"keeps <choice>un<b>closed</b></choice> markup", "keeps <choice>un<b>closed</b></choice> markup"},
		{"no tag", "no tag"},
	}
	for _, tt := range tests {
		if got := StripChoice(tt.text); got != tt.want {
			t.Errorf("StripChoice(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

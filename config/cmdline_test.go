package config

import "testing"

// TestRawOutput: what the raw arguments ask of stdout when they do not parse, read in one
// pass: the last --output-format (as the parser keeps it), --print, nothing after "--".
func TestRawOutput(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		format    string
		kimiLines bool
	}{
		{nil, "", false},
		{[]string{"--output-format", "stream-json", "--bogus"}, "stream-json", false},
		{[]string{"--bogus", "--output-format=json"}, "json", false},
		{[]string{"--output-format", "json", "--output-format", "text"}, "text", false},
		{[]string{"--print", "--output-format", "stream-json"}, "stream-json", true},
		{[]string{"--print=true"}, "", true},
		{[]string{"--", "--output-format", "json", "--print"}, "", false},
		{[]string{"--output-format"}, "", false},
	} {
		format, kimiLines := RawOutput(tt.args)
		if format != tt.format || kimiLines != tt.kimiLines {
			t.Errorf("%q: %q, %v; want %q, %v", tt.args, format, kimiLines, tt.format, tt.kimiLines)
		}
	}
}

package model

import (
	"encoding/json"
	"testing"
)

// FuzzParseArgs checks that argument decoding accepts exactly JSON objects (and empty text).
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{"", "{}", `{"a":1}`, "[]", "null", " {\"x\":\"\\u0000\"} ", "{", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, ok := ParseArgs(s)
		if !ok {
			return
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("ParseArgs accepted %q, not an object: %v", s, err)
		}
	})
}

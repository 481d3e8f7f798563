package launch

import (
	"strings"
	"testing"
)

func TestHeadKeepsTheFirstBytes(t *testing.T) {
	tests := []struct {
		name    string
		max     int
		writes  []string
		want    string
		dropped int64
	}{
		{name: "under", max: 8, writes: []string{"abc", "de"}, want: "abcde"},
		{name: "exactly", max: 5, writes: []string{"abcde"}, want: "abcde"},
		{name: "cut inside a write", max: 4, writes: []string{"abc", "def"}, want: "abcd", dropped: 2},
		{name: "after the cut", max: 3, writes: []string{"abc", "def", "gh"}, want: "abc", dropped: 5},
		{name: "zero", max: 0, writes: []string{"abc"}, want: "", dropped: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &Head{Max: tt.max}
			for _, w := range tt.writes {
				if n, err := h.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil: a copy must never stop", w, n, err, len(w))
				}
			}
			if got := h.String(); got != tt.want {
				t.Errorf("kept %q, want %q", got, tt.want)
			}
			if got := h.Dropped(); got != tt.dropped {
				t.Errorf("dropped %d, want %d (written %d)", got, tt.dropped, len(strings.Join(tt.writes, "")))
			}
		})
	}
}

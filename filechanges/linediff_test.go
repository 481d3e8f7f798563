package filechanges

import (
	"fmt"
	"strings"
	"testing"
)

func TestLineCounts(t *testing.T) {
	t.Parallel()
	lines := func(n int, f string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, f+"\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name, old, new string
		added, removed int
	}{
		{"same", "a\nb\n", "a\nb\n", 0, 0},
		{"created", "", "a\nb\nc\n", 3, 0},
		{"deleted", "a\nb\n", "", 0, 2},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"inserted in the middle", "a\nc\n", "a\nb\nc\n", 1, 0},
		{"no final newline", "a\nb", "a\nb\n", 1, 1},
		{"moved block", "x\ny\nz\n1\n2\n", "1\n2\nx\ny\nz\n", 2, 2},
		{"interleaved", "a\nb\nc\nd\ne\nf\n", "a\nX\nc\nY\ne\nZ\n", 3, 3},
		// Past the exact search's bound: the multiset count, exact here since no line moved.
		{"large", lines(10000, "old %d"), lines(10000, "new %d"), 10000, 10000},
	}
	for _, tt := range tests {
		added, removed := lineCounts([]byte(tt.old), []byte(tt.new))
		if added != tt.added || removed != tt.removed {
			t.Errorf("%s: +%d -%d, want +%d -%d", tt.name, added, removed, tt.added, tt.removed)
		}
	}
}

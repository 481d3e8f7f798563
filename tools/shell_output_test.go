package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHeadTail(t *testing.T) {
	tests := []struct {
		name   string
		head   int
		tail   int
		writes []string
		want   string
	}{
		{name: "nothing", head: 4, tail: 4, want: ""},
		{name: "fits", head: 4, tail: 4, writes: []string{"abc", "defgh"}, want: "abcdefgh"},
		{name: "one big write", head: 3, tail: 3, writes: []string{"0123456789"}, want: "012\n[... 4 bytes of output omitted ...]\n789"},
		{name: "many small writes", head: 2, tail: 3, writes: strings.Split("abcdefghij", ""), want: "ab\n[... 5 bytes of output omitted ...]\nhij"},
		{name: "wrapping ring", head: 1, tail: 4, writes: []string{"ab", "cde", "fg", "hijk", "l"}, want: "a\n[... 7 bytes of output omitted ...]\nijkl"},
		{
			name: "cuts fall between characters", head: 3, tail: 3,
			writes: []string{"é", "é", "é", "xxxx", "é", "é", "é"},
			want:   "é\n[... 12 bytes of output omitted ...]\né",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newHeadTail(tt.head, tt.tail)
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			got := b.String()
			if got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("String() is not valid UTF-8")
			}
		})
	}
}

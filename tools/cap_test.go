package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// checkCapped fails the test unless out keeps every promise Cap makes.
func checkCapped(t *testing.T, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("output is not valid UTF-8")
	}
	if strings.IndexByte(out, 0) >= 0 {
		t.Errorf("output holds a NUL byte")
	}
	if n := utf8.RuneCountInString(out); n > MaxOutputChars {
		t.Errorf("output has %d characters, want at most %d", n, MaxOutputChars)
	}
	for i, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > MaxLineChars {
			t.Fatalf("line %d has %d characters, want at most %d", i+1, n, MaxLineChars)
		}
	}
}

func TestCap(t *testing.T) {
	long := strings.Repeat("x", 3000)
	wide := strings.Repeat("世", 2500)
	tests := []struct {
		name     string
		in       string
		want     string   // exact output, when set
		contains []string // substrings the output must hold
		absent   []string // substrings it must not hold
	}{
		{name: "empty", in: "", want: ""},
		{name: "short text unchanged", in: "hello\nworld\n", want: "hello\nworld\n"},
		{name: "line of exactly the limit unchanged", in: strings.Repeat("y", MaxLineChars), want: strings.Repeat("y", MaxLineChars)},
		{
			name: "long line cut with marker",
			in:   "a\n" + long + "\nb\n",
			want: "a\n" + long[:MaxLineChars-len(TruncatedMarker)] + TruncatedMarker + "\nb\n" +
				"[output truncated: 1 lines longer than 2000 characters were cut (about 1014 bytes)]",
		},
		{
			name:     "wide characters are never split",
			in:       wide,
			contains: []string{strings.Repeat("世", MaxLineChars-len(TruncatedMarker)) + TruncatedMarker},
		},
		{name: "invalid UTF-8 replaced", in: "ok\xff\xfebad\n", want: "ok\uFFFD\uFFFDbad\n"},
		{name: "NUL escaped", in: "a\x00b", want: `a\x00b`},
		{
			name:     "total limit with closing note",
			in:       strings.Repeat(strings.Repeat("z", 99)+"\n", 2000),
			contains: []string{"[output truncated: the last ", " bytes (", " lines) were dropped to stay within 50000 characters]"},
		},
		{
			name:     "many empty lines",
			in:       strings.Repeat("\n", 200_000),
			contains: []string{"[output truncated: the last "},
		},
		{
			name:     "mixed NULs and invalid bytes on a long line",
			in:       strings.Repeat("\x00\xffé", 5000),
			contains: []string{TruncatedMarker},
			absent:   []string{"\x00"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Cap(tt.in)
			checkCapped(t, got)
			if tt.want != "" || tt.in == "" {
				if got != tt.want {
					t.Errorf("Cap() =\n%q\nwant\n%q", abbrev(got), abbrev(tt.want))
				}
			}
			for _, s := range tt.contains {
				if !strings.Contains(got, s) {
					t.Errorf("output lacks %q; tail: %q", abbrev(s), lastBytes(got))
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(got, s) {
					t.Errorf("output holds %q", s)
				}
			}
			if again := Cap(got); again != got {
				t.Errorf("Cap is not idempotent on this input")
			}
		})
	}
}

func TestCapHugeSingleLine(t *testing.T) {
	in := strings.Repeat("q", 50<<20)
	got := Cap(in)
	checkCapped(t, got)
	lines := strings.Split(got, "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], TruncatedMarker) {
		t.Fatalf("want the cut line and a note, got %d lines: %q", len(lines), lastBytes(got))
	}
	if !strings.Contains(lines[1], "1 lines longer than 2000 characters were cut") {
		t.Errorf("note does not report the cut: %q", lines[1])
	}
}

func abbrev(s string) string {
	if len(s) > 300 {
		return s[:150] + "..." + s[len(s)-150:]
	}
	return s
}

func lastBytes(s string) string {
	if len(s) > 300 {
		return s[len(s)-300:]
	}
	return s
}

func BenchmarkCap(b *testing.B) {
	inputs := []struct {
		name string
		in   string
	}{
		{"50MB_one_line", strings.Repeat("a", 50<<20)},
		{"50MB_short_lines", strings.Repeat(strings.Repeat("b", 79)+"\n", (50<<20)/80)},
		{"50MB_invalid_utf8", strings.Repeat("\xff\x00", 25<<20)},
		{"40KB_fits", strings.Repeat(strings.Repeat("c", 79)+"\n", 500)},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.in)))
			b.ReportAllocs()
			for b.Loop() {
				Cap(in.in)
			}
		})
	}
}

package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// numbered returns lines from..to of a file whose line n is "line n", as ReadFile shows them.
func numbered(from, to int) string {
	var b strings.Builder
	for n := from; n <= to; n++ {
		fmt.Fprintf(&b, "%6d\tline %d\n", n, n)
	}
	return b.String()
}

// linesFile returns the text of a file of n lines "line 1" .. "line n".
func linesFile(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir, "five.txt", linesFile(5))
	writeTestFile(t, dir, "nonl.txt", "one\ntwo")
	writeTestFile(t, dir, "empty.txt", "")
	writeTestFile(t, dir, "big.txt", linesFile(1500))
	writeTestFile(t, dir, "sub/inner.txt", "inner\n")
	writeTestFile(t, dir, "long.txt", "short\n"+strings.Repeat("x", 2500)+"\nend\n")
	writeTestFile(t, dir, "latin1.txt", "caf\xe9 au lait\nplain\n")
	writeTestFile(t, dir, "nul.bin", "text\x00more")
	writeTestFile(t, dir, "noise.bin", strings.Repeat("\xff\xfe\x80\x81", 1000))
	writeTestFile(t, dir, ".env", "API_KEY=hunter2-value\n")
	writeTestFile(t, dir, "cfg/.env.production", "API_KEY=hunter2-value\n")
	writeTestFile(t, dir, ".env.example", "API_KEY=\n")
	writeTestFile(t, dir, "id_rsa", "-----BEGIN-----\n")
	outside := writeTestFile(t, t.TempDir(), "outside.txt", "far away\n")
	tool := NewReadFile(Env{WorkDir: dir})

	tests := []struct {
		name     string
		args     any
		want     string // exact output, when set
		contains []string
		isError  bool
	}{
		{name: "whole file", args: map[string]any{"path": "five.txt"},
			want: numbered(1, 5) + "[Lines 1-5 of 5. End of file reached.]"},
		{name: "last line without newline", args: map[string]any{"path": "nonl.txt"},
			want: "     1\tone\n     2\ttwo\n[Lines 1-2 of 2. End of file reached.]"},
		{name: "offset and count", args: map[string]any{"path": "five.txt", "line_offset": 2, "n_lines": 2},
			want: numbered(2, 3) + "[Lines 2-3 of 5. More lines follow; continue with line_offset=4.]"},
		{name: "zero offset means start", args: map[string]any{"path": "five.txt", "line_offset": 0, "n_lines": 1},
			want: numbered(1, 1) + "[Lines 1-1 of 5. More lines follow; continue with line_offset=2.]"},
		{name: "negative offset reads the tail", args: map[string]any{"path": "five.txt", "line_offset": -2},
			want: numbered(4, 5) + "[Lines 4-5 of 5. End of file reached.]"},
		{name: "negative offset with count", args: map[string]any{"path": "big.txt", "line_offset": -100, "n_lines": 10},
			want: numbered(1401, 1410) + "[Lines 1401-1410 of 1500. More lines follow; continue with line_offset=1411.]"},
		{name: "negative offset beyond the start", args: map[string]any{"path": "five.txt", "line_offset": -50},
			want: numbered(1, 5) + "[Lines 1-5 of 5. End of file reached.]"},
		{name: "negative offset too far", args: map[string]any{"path": "big.txt", "line_offset": -1001},
			isError: true, contains: []string{"-1000"}},
		{name: "offset past the end", args: map[string]any{"path": "five.txt", "line_offset": 9},
			want: "[No lines read: line_offset 9 is past the end of the file, which has 5 lines.]"},
		{name: "empty file", args: map[string]any{"path": "empty.txt"}, want: "[The file is empty.]"},
		{name: "1000-line cap", args: map[string]any{"path": "big.txt"},
			want: numbered(1, 1000) + "[Lines 1-1000 of 1500. Stopped at the 1000-line limit; continue with line_offset=1001.]"},
		{name: "n_lines above the cap", args: map[string]any{"path": "big.txt", "line_offset": 401, "n_lines": 5000},
			want: numbered(401, 1400) + "[Lines 401-1400 of 1500. Stopped at the 1000-line limit; continue with line_offset=1401.]"},
		{name: "second page", args: map[string]any{"path": "big.txt", "line_offset": 1001},
			want: numbered(1001, 1500) + "[Lines 1001-1500 of 1500. End of file reached.]"},
		{name: "long line cut", args: map[string]any{"path": "long.txt"},
			want: "     1\tshort\n     2\t" + strings.Repeat("x", 1990) + "...\n     3\tend\n" +
				"[Lines 1-3 of 3. End of file reached. Lines cut to fit 2000 characters: 2.]"},
		{name: "stray invalid bytes are text", args: map[string]any{"path": "latin1.txt"},
			contains: []string{"     1\tcaf\uFFFD au lait\n     2\tplain\n"}},
		{name: "absolute path outside the work dir", args: map[string]any{"path": outside},
			contains: []string{"     1\tfar away\n"}},
		{name: "nested relative path", args: map[string]any{"path": "sub/inner.txt"}, contains: []string{"\tinner\n"}},
		{name: "NUL means binary", args: map[string]any{"path": "nul.bin"}, isError: true, contains: []string{"binary"}},
		{name: "invalid UTF-8 noise is binary", args: map[string]any{"path": "noise.bin"}, isError: true, contains: []string{"binary"}},
		{name: "directory refused", args: map[string]any{"path": "sub"}, isError: true, contains: []string{"directory"}},
		{name: "missing file", args: map[string]any{"path": "nope.txt"}, isError: true, contains: []string{"nope.txt"}},
		{name: ".env refused", args: map[string]any{"path": ".env"}, isError: true, contains: []string{"environment file"}},
		{name: ".env.production refused", args: map[string]any{"path": "cfg/.env.production"}, isError: true, contains: []string{"environment file"}},
		{name: "private key refused", args: map[string]any{"path": "id_rsa"}, isError: true, contains: []string{"SSH private key"}},
		{name: ".env.example allowed", args: map[string]any{"path": ".env.example"}, contains: []string{"     1\tAPI_KEY=\n"}},
		{name: "escape refused", args: map[string]any{"path": "../five.txt"}, isError: true, contains: []string{"outside the work dir"}},
		{name: "missing path", args: map[string]any{}, isError: true, contains: []string{`"path"`}},
		{name: "path of wrong type", args: `{"path": 5}`, isError: true},
		{name: "not JSON", args: `{"path": `, isError: true},
		{name: "negative n_lines", args: map[string]any{"path": "five.txt", "n_lines": -1}, isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustCall(t, tool, tt.args)
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v, want %v; output: %s", res.IsError, tt.isError, abbrev(res.Output))
			}
			if tt.want != "" && res.Output != tt.want {
				t.Errorf("output =\n%s\nwant\n%s", abbrev(res.Output), abbrev(tt.want))
			}
			for _, s := range tt.contains {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output lacks %q:\n%s", s, abbrev(res.Output))
				}
			}
			if strings.Contains(res.Output, "hunter2") {
				t.Errorf("output leaks a secret: %s", res.Output)
			}
			if got := Cap(res.Output); got != res.Output {
				t.Errorf("the agent's Cap would cut this output")
			}
		})
	}
}

func TestReadFileOutputCaps(t *testing.T) {
	dir := t.TempDir()
	// 3-byte characters: 1000 lines of 100 of them pass 100 KiB before 49,000 characters.
	writeTestFile(t, dir, "wide.txt", strings.Repeat(strings.Repeat("世", 100)+"\n", 1000))
	// ASCII lines of 200 characters pass the character limit first.
	writeTestFile(t, dir, "ascii.txt", strings.Repeat(strings.Repeat("a", 200)+"\n", 1000))
	tool := NewReadFile(Env{WorkDir: dir})
	tests := []struct {
		file      string
		limit     string
		wantLines int
	}{
		{"wide.txt", "the 100 KiB limit of one read", ReadMaxBytes / len(fmt.Sprintf("%6d\t%s\n", 1, strings.Repeat("世", 100)))},
		{"ascii.txt", "the 49000-character limit of one read", readMaxChars / len(fmt.Sprintf("%6d\t%s\n", 1, strings.Repeat("a", 200)))},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res := mustCall(t, tool, map[string]any{"path": tt.file})
			if res.IsError {
				t.Fatal(res.Output)
			}
			lines := strings.Split(res.Output, "\n")
			body, footer := lines[:len(lines)-1], lines[len(lines)-1]
			if len(body) != tt.wantLines {
				t.Errorf("got %d lines, want %d", len(body), tt.wantLines)
			}
			want := fmt.Sprintf("[Lines 1-%d of 1000. Stopped at %s; continue with line_offset=%d.]", tt.wantLines, tt.limit, tt.wantLines+1)
			if footer != want {
				t.Errorf("footer = %q, want %q", footer, want)
			}
			if len(res.Output) > ReadMaxBytes+200 {
				t.Errorf("output is %d bytes", len(res.Output))
			}
			if Cap(res.Output) != res.Output {
				t.Errorf("the agent's Cap would cut this output")
			}
		})
	}
}

func TestReadFileHugeLine(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("z", 1<<20))
	for range 20 {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.WriteString("\nafter\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	res := mustCall(t, NewReadFile(Env{WorkDir: dir}), map[string]any{"path": "huge.txt"})
	want := "     1\t" + strings.Repeat("z", 1990) + "...\n     2\tafter\n" +
		"[Lines 1-2 of 2. End of file reached. Lines cut to fit 2000 characters: 1.]"
	if res.IsError || res.Output != want {
		t.Fatalf("got %v %s", res.IsError, abbrev(res.Output))
	}
}

func BenchmarkReadFile(b *testing.B) {
	dir := b.TempDir()
	writeTestFile(b, dir, "100k.txt", strings.Repeat("the quick brown fox jumps over the lazy dog 0123456789\n", 100_000))
	tool := NewReadFile(Env{WorkDir: dir})
	for _, bc := range []struct {
		name string
		args map[string]any
	}{
		{"head", map[string]any{"path": "100k.txt"}},
		{"middle", map[string]any{"path": "100k.txt", "line_offset": 50_000, "n_lines": 100}},
		{"tail", map[string]any{"path": "100k.txt", "line_offset": -1000}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := mustCall(b, tool, bc.args); res.IsError {
					b.Fatal(res.Output)
				}
			}
		})
	}
}

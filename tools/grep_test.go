package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

func TestGrepNotesSkippedSecrets(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{".env": "TOKEN=needle\n", "certs/server.pem": "needle\n", "a.txt": "needle\n"})
	res := runSearchTool(t, NewGrep(Env{WorkDir: root}), map[string]any{"pattern": "needle", "output_mode": "content"})
	want := "a.txt:1:needle\n\nSkipped 2 files that may hold secrets (environment files, keys, credentials), never searched: .env, certs/server.pem."
	if res.Output != want {
		t.Errorf("got:\n%s\nwant:\n%s", res.Output, want)
	}
}

func TestGrepModes(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{
		"a.txt": "one\ntwo Alpha\nthree\nfour alpha alpha\nfive\nsix\nseven\neight\nnine alpha\nten\n",
		"b.txt": "ALPHA\nbeta\n",
		"c.md":  "# Alpha\nfirst line\nsecond line\n",
		"d.go":  "package d\n\nfunc A() {\n\treturn\n}\n",
	})
	testkit.Touch(t, root, "a.txt", time.Hour)
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"content", map[string]any{"pattern": "alpha", "output_mode": "content"},
			"a.txt:4:four alpha alpha\na.txt:9:nine alpha"},
		{"content without line numbers", map[string]any{"pattern": "alpha", "output_mode": "content", "-n": false},
			"a.txt:four alpha alpha\na.txt:nine alpha"},
		{"ignore case", map[string]any{"pattern": "alpha", "output_mode": "content", "-i": true},
			"a.txt:2:two Alpha\na.txt:4:four alpha alpha\na.txt:9:nine alpha\nb.txt:1:ALPHA\nc.md:1:# Alpha"},
		{"context", map[string]any{"pattern": "alpha", "output_mode": "content", "-C": 1},
			"a.txt-3-three\na.txt:4:four alpha alpha\na.txt-5-five\n--\na.txt-8-eight\na.txt:9:nine alpha\na.txt-10-ten"},
		{"after only", map[string]any{"pattern": "alpha", "output_mode": "content", "-A": 1, "-i": true},
			"a.txt:2:two Alpha\na.txt-3-three\na.txt:4:four alpha alpha\na.txt-5-five\n--\na.txt:9:nine alpha\na.txt-10-ten\n--\nb.txt:1:ALPHA\nb.txt-2-beta\n--\nc.md:1:# Alpha\nc.md-2-first line"},
		{"before overrides context", map[string]any{"pattern": "nine", "output_mode": "content", "-C": 1, "-B": 3},
			"a.txt-6-six\na.txt-7-seven\na.txt-8-eight\na.txt:9:nine alpha\na.txt-10-ten"},
		{"count", map[string]any{"pattern": "alpha", "output_mode": "count_matches", "-i": true},
			"a.txt:4\nb.txt:1\nc.md:1\n\nTotal: 6 matches in 3 files."},
		{"type filter", map[string]any{"pattern": "alpha", "type": "markdown", "-i": true}, "c.md"},
		{"glob filter", map[string]any{"pattern": "alpha", "glob": "*.{md,go}", "-i": true}, "c.md"},
		{"negated glob", map[string]any{"pattern": "alpha", "glob": "!*.txt", "-i": true}, "c.md"},
		{"multiline", map[string]any{"pattern": `A\(\) \{.*?return`, "multiline": true, "output_mode": "content"},
			"d.go:3:func A() {\nd.go:4:\treturn"},
		{"multiline count", map[string]any{"pattern": `line\nsecond`, "multiline": true, "output_mode": "count_matches"},
			"c.md:1\n\nTotal: 1 match in 1 file."},
		{"anchors are per line", map[string]any{"pattern": `^f\w+`, "output_mode": "content", "path": "a.txt"},
			"a.txt:4:four alpha alpha\na.txt:5:five"},
		{"single file path", map[string]any{"pattern": "beta", "path": "b.txt", "output_mode": "content"},
			"b.txt:2:beta"},
		{"no match", map[string]any{"pattern": "zeta"}, "No matches found."},
	}
	grep := NewGrep(Env{WorkDir: root})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runSearchTool(t, grep, tt.args)
			if res.IsError {
				t.Fatalf("unexpected error: %s", res.Output)
			}
			if res.Output != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", res.Output, tt.want)
			}
		})
	}
}

func TestGrepPagination(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		files[name+".txt"] = "x\nx\n"
	}
	testkit.WriteTree(t, root, files)
	grep := NewGrep(Env{WorkDir: root})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"files head", map[string]any{"pattern": "x", "head_limit": 2},
			"a.txt\nb.txt\n\nShowing files 1-2 of 5. Use offset=2 to see more."},
		{"files offset", map[string]any{"pattern": "x", "head_limit": 2, "offset": 2},
			"c.txt\nd.txt\n\nShowing files 3-4 of 5. Use offset=4 to see more."},
		{"files last page", map[string]any{"pattern": "x", "head_limit": 2, "offset": 4}, "e.txt"},
		{"unlimited", map[string]any{"pattern": "x", "head_limit": 0}, "a.txt\nb.txt\nc.txt\nd.txt\ne.txt"},
		{"content lines", map[string]any{"pattern": "x", "output_mode": "content", "head_limit": 3, "offset": 1},
			"a.txt:2:x\nb.txt:1:x\nb.txt:2:x\n\nShowing lines 2-4 of 10. Use offset=4 to see more."},
		{"past the end", map[string]any{"pattern": "x", "offset": 9},
			"offset 9 is past the end: there are 5 files of results."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runSearchTool(t, grep, tt.args)
			if res.Output != tt.want {
				t.Errorf("got:\n%q\nwant:\n%q", res.Output, tt.want)
			}
		})
	}
}

func TestGrepOutputStaysUnderCharacterBudget(t *testing.T) {
	root := t.TempDir()
	line := strings.Repeat("y", 300) + "\n"
	testkit.WriteTree(t, root, map[string]string{"big.txt": strings.Repeat(line, 400)})
	res := runSearchTool(t, NewGrep(Env{WorkDir: root}), map[string]any{"pattern": "y", "output_mode": "content", "head_limit": 0})
	if len(res.Output) > grepCharBudget+500 {
		t.Errorf("output is %d characters, over the budget", len(res.Output))
	}
	if !strings.Contains(res.Output, "cut to stay under") || !strings.Contains(res.Output, "Use offset=") {
		t.Errorf("missing paging note:\n%s", res.Output[len(res.Output)-300:])
	}
}

func TestGrepRefusals(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{"a.txt": "a\n", ".env": "KEY=1\n"})
	grep := NewGrep(Env{WorkDir: root})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"empty pattern", map[string]any{"pattern": ""}, "empty"},
		{"bad regex", map[string]any{"pattern": "a("}, "invalid regular expression"},
		{"newline needs multiline", map[string]any{"pattern": `a\nb`}, "set multiline"},
		{"unknown type", map[string]any{"pattern": "a", "type": "cobol"}, "unknown file type"},
		{"unknown mode", map[string]any{"pattern": "a", "output_mode": "lines"}, "unknown output_mode"},
		{"negative context", map[string]any{"pattern": "a", "-A": -1}, "must not be negative"},
		{"missing path", map[string]any{"pattern": "a", "path": "nope"}, "cannot search"},
		{"secret file path", map[string]any{"pattern": "KEY", "path": ".env"}, "environment file"},
		{"missing pattern", map[string]any{"path": "."}, "missing required field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runSearchTool(t, grep, tt.args)
			if !res.IsError || !strings.Contains(res.Output, tt.want) {
				t.Errorf("got IsError=%v %q, want an error containing %q", res.IsError, res.Output, tt.want)
			}
		})
	}
}

func TestGrepSelectingGlobDoesNotReachSecrets(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{"k/server.pem": "needle\n", "k/notes.txt": "needle\n"})
	res := runSearchTool(t, NewGrep(Env{WorkDir: root}), map[string]any{"pattern": "needle", "glob": "*.pem", "output_mode": "content"})
	want := "No matches found.\n\nSkipped k/server.pem, never searched: it looks like a private key or certificate bundle."
	if res.Output != want {
		t.Errorf("got:\n%s\nwant:\n%s", res.Output, want)
	}
}

func TestGrepCancelled(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{"a.txt": "needle\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := NewGrep(Env{WorkDir: root}).Run(ctx, json.RawMessage(`{"pattern":"needle"}`))
	if err != nil || !res.IsError || !strings.Contains(res.Output, "cancelled") {
		t.Errorf("got %+v, %v; want a cancellation result", res, err)
	}
}

package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

func TestGlobPatterns(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{
		".gitignore":               "dist/\n*.tmp\n",
		"main.go":                  "",
		"cmd/tool/main.go":         "",
		"cmd/tool/main_test.go":    "",
		"internal/a/a.go":          "",
		"internal/a/notes.md":      "",
		"dist/bundle.go":           "",
		"cache.tmp":                "",
		"node_modules/lib/x.go":    "",
		".git/hooks/pre-commit.go": "",
		".github/workflows/ci.yml": "",
		"empty/":                   "",
	})
	glob := NewGlob(Env{WorkDir: root})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"recursive", map[string]any{"pattern": "**/*.go"},
			"cmd/tool/main.go\ncmd/tool/main_test.go\ninternal/a/a.go\nmain.go"},
		{"top level only", map[string]any{"pattern": "*.go"}, "main.go"},
		{"literal prefix", map[string]any{"pattern": "cmd/**/*_test.go"}, "cmd/tool/main_test.go"},
		{"alternatives", map[string]any{"pattern": "internal/**/*.{go,md}"}, "internal/a/a.go\ninternal/a/notes.md"},
		{"directories included", map[string]any{"pattern": "*"},
			".github/\n.gitignore\ncmd/\nempty/\ninternal/\nmain.go"},
		{"directories excluded", map[string]any{"pattern": "*", "include_dirs": false}, ".gitignore\nmain.go"},
		{"hidden files", map[string]any{"pattern": "**/*.yml"}, ".github/workflows/ci.yml"},
		{"explicit node_modules", map[string]any{"pattern": "node_modules/**/*.go"}, "node_modules/lib/x.go"},
		{"directory argument", map[string]any{"pattern": "*.go", "directory": filepath.Join(root, "cmd", "tool")},
			"cmd/tool/main.go\ncmd/tool/main_test.go"},
		{"relative directory", map[string]any{"pattern": "**/*.md", "directory": "internal"}, "internal/a/notes.md"},
		{"no match", map[string]any{"pattern": "**/*.rs"}, fmt.Sprintf("No paths match %q under %s.", "**/*.rs", ".")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runSearchTool(t, glob, tt.args)
			if res.IsError {
				t.Fatalf("unexpected error: %s", res.Output)
			}
			if res.Output != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", res.Output, tt.want)
			}
		})
	}
}

func TestGlobCapKeepsNewest(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range globLimit + 5 {
		files[fmt.Sprintf("f%04d.txt", i)] = ""
	}
	testkit.WriteTree(t, root, files)
	testkit.Touch(t, root, "f0003.txt", time.Hour)
	res := runSearchTool(t, NewGlob(Env{WorkDir: root}), map[string]any{"pattern": "*.txt"})
	lines := outputLines(res.Output)
	if len(lines) != globLimit {
		t.Fatalf("got %d paths, want %d", len(lines), globLimit)
	}
	if lines[0] != "f0003.txt" || lines[1] != "f0000.txt" || lines[len(lines)-1] != "f0999.txt" {
		t.Errorf("unexpected order: first %q, %q, last %q", lines[0], lines[1], lines[len(lines)-1])
	}
	if !strings.Contains(res.Output, fmt.Sprintf("Showing the %d most recently modified of %d matches", globLimit, globLimit+5)) {
		t.Errorf("missing cap note:\n%s", res.Output[len(res.Output)-200:])
	}
}

func TestGlobRefusals(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{"a.go": ""})
	glob := NewGlob(Env{WorkDir: root})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"empty", map[string]any{"pattern": " "}, "empty"},
		{"absolute", map[string]any{"pattern": "/etc/*"}, "must be relative"},
		{"parent", map[string]any{"pattern": "../*.go"}, `".." may not appear`},
		{"parent inside", map[string]any{"pattern": "src/../../x"}, `".." may not appear`},
		{"unclosed class", map[string]any{"pattern": "a[.go"}, "not a valid glob"},
		{"unclosed brace", map[string]any{"pattern": "*.{go"}, "not a valid glob"},
		{"missing directory", map[string]any{"pattern": "*", "directory": filepath.Join(root, "nope")}, "cannot search"},
		{"file as directory", map[string]any{"pattern": "*", "directory": filepath.Join(root, "a.go")}, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runSearchTool(t, glob, tt.args)
			if !res.IsError || !strings.Contains(res.Output, tt.want) {
				t.Errorf("got IsError=%v %q, want an error containing %q", res.IsError, res.Output, tt.want)
			}
		})
	}
}

package search

import (
	"context"
	"slices"
	"testing"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

func TestIgnoreRules(t *testing.T) {
	tests := []struct {
		rules string
		path  string
		isDir bool
		want  ignoreVerdict
	}{
		{"*.log", "a.log", false, verdictIgnore},
		{"*.log", "sub/dir/a.log", false, verdictIgnore},
		{"*.log", "a.logx", false, verdictNone},
		{"*.log\n!keep.log", "x/keep.log", false, verdictKeep},
		{"!keep.log\n*.log", "keep.log", false, verdictIgnore}, // the last match wins
		{"# comment\n\n   \n", "# comment", false, verdictNone},
		{`\#hash`, "#hash", false, verdictIgnore},
		{`\!bang`, "!bang", false, verdictIgnore},
		{"trail   ", "trail", false, verdictIgnore},
		{`space\ `, "space ", false, verdictIgnore},
		{"build/", "build", true, verdictIgnore},
		{"build/", "build", false, verdictNone}, // directory-only pattern, file of that name
		{"build/", "src/build", true, verdictIgnore},
		{"/build", "build", true, verdictIgnore},
		{"/build", "src/build", true, verdictNone}, // anchored to the ignore file's directory
		{"doc/frotz", "doc/frotz", false, verdictIgnore},
		{"doc/frotz", "a/doc/frotz", false, verdictNone}, // a middle slash anchors too
		{"**/foo", "foo", true, verdictIgnore},
		{"**/foo", "a/b/foo", false, verdictIgnore},
		{"**/foo/bar", "x/foo/bar", false, verdictIgnore},
		{"foo/**", "foo/a/b", false, verdictIgnore},
		{"foo/**", "foo", true, verdictNone}, // only what is inside foo
		{"a/**/b", "a/b", false, verdictIgnore},
		{"a/**/b", "a/x/y/b", false, verdictIgnore},
		{"a/**/b", "c/a/x/b", false, verdictNone},
		{"file?.txt", "file1.txt", false, verdictIgnore},
		{"file?.txt", "file10.txt", false, verdictNone},
		{"[ab].c", "b.c", false, verdictIgnore},
		{"[!ab].c", "b.c", false, verdictNone},
		{"{a,b}.c", "a.c", false, verdictNone}, // git reads braces literally
		{"{a,b}.c", "{a,b}.c", false, verdictIgnore},
		{"*.txt\r", "x.txt", false, verdictIgnore}, // CRLF files
	}
	for _, tt := range tests {
		rules := parseIgnoreRules([]byte(tt.rules))
		name := tt.path[max(0, lastSlash(tt.path)+1):]
		if got := rules.match(tt.path, name, tt.isDir); got != tt.want {
			t.Errorf("rules %q, path %q (dir %v): got %v, want %v", tt.rules, tt.path, tt.isDir, got, tt.want)
		}
	}
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

// walkedFiles lists the files a treeWalker visits below root, sorted.
func walkedFiles(t *testing.T, root, start string) []string {
	t.Helper()
	var got []string
	w := &treeWalker{prune: vcsDirs}
	err := w.walk(context.Background(), root, start, func(e walkEntry) error {
		if !e.isDir {
			got = append(got, e.rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

func TestTreeWalkerIgnoreFiles(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{
		".gitignore":          "*.out\nvendor/\n",
		".git/info/exclude":   "local.txt\n",
		".git/HEAD":           "",
		"local.txt":           "",
		"a.out":               "",
		"keep.txt":            "",
		"vendor/dep.go":       "",
		".ignore":             "!special.out\n",
		"special.out":         "",
		"sub/.rgignore":       "*.txt\n",
		"sub/.ignore":         "!*.txt\n",
		"sub/x.txt":           "",
		"nested/.git/HEAD":    "",
		"nested/b.out":        "",
		"nested/.gitignore":   "c.md\n",
		"nested/c.md":         "",
		"nested/d.md":         "",
		"deep/a/b/c/file.out": "",
		"deep/a/b/c/file.go":  "",
	})
	want := []string{
		".gitignore", ".ignore",
		"deep/a/b/c/file.go",
		"keep.txt",
		"nested/.gitignore", "nested/b.out", "nested/d.md",
		"special.out",
		"sub/.ignore", "sub/.rgignore",
	}
	if got := walkedFiles(t, root, root); !slices.Equal(got, want) {
		t.Errorf("walk:\ngot  %q\nwant %q", got, want)
	}
	// Starting below the root still applies the root's rules.
	if got := walkedFiles(t, root, root+"/deep"); !slices.Equal(got, []string{"deep/a/b/c/file.go"}) {
		t.Errorf("walk from deep: got %q", got)
	}
}

// TestIncludeIgnored: a query with IncludeIgnored reads past the ignore files, in Go (the
// walker reads none) and in rg (--no-ignore); VCS directories stay out either way.
func TestIncludeIgnored(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{".gitignore": "build/\n", "build/out.txt": "", ".git/HEAD": "", "keep.txt": ""})
	var got []string
	w := &treeWalker{prune: vcsDirs, noIgnore: true}
	err := w.walk(context.Background(), root, root, func(e walkEntry) error {
		if !e.isDir {
			got = append(got, e.rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{".gitignore", "build/out.txt", "keep.txt"}; !slices.Equal(got, want) {
		t.Errorf("walk with noIgnore: %q, want %q", got, want)
	}
	for _, include := range []bool{false, true} {
		g, err := NewGrep(Query{Pattern: "x", IncludeIgnored: include})
		if err != nil {
			t.Fatal(err)
		}
		if has := slices.Contains(g.ripgrepArgs(root), "--no-ignore"); has != include {
			t.Errorf("IncludeIgnored %v: rg args %q", include, g.ripgrepArgs(root))
		}
	}
}

package search

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

// globPaths runs a Glob with the pure-Go engine and returns the paths it kept.
func globPaths(t *testing.T, root string, q GlobQuery) ([]string, int) {
	t.Helper()
	l, err := Glob(context.Background(), Options{WorkDir: root}, q, root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range l.Entries {
		p := e.Path
		if e.IsDir {
			p += "/"
		}
		out = append(out, p)
	}
	return out, l.Total
}

func TestGlobNewestFirstAndCapped(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{"old.txt": "", "mid.txt": "", "new.txt": "", "same-a.txt": "", "same-b.txt": ""})
	testkit.Touch(t, root, "new.txt", 3*time.Hour)
	testkit.Touch(t, root, "mid.txt", 2*time.Hour)
	testkit.Touch(t, root, "old.txt", -time.Hour)
	got, total := globPaths(t, root, GlobQuery{Pattern: "*.txt", Limit: 10})
	if want := []string{"new.txt", "mid.txt", "same-a.txt", "same-b.txt", "old.txt"}; !slices.Equal(got, want) || total != 5 {
		t.Errorf("got %q (total %d), want %q", got, total, want)
	}
	got, total = globPaths(t, root, GlobQuery{Pattern: "*.txt", Limit: 2})
	if want := []string{"new.txt", "mid.txt"}; !slices.Equal(got, want) || total != 5 {
		t.Errorf("capped: got %q (total %d), want %q of 5", got, total, want)
	}
}

func TestGlobDirectoriesAndStart(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{
		".gitignore": "dist/\n", "cmd/tool/main.go": "", "dist/x.go": "", "node_modules/lib/x.go": "", "empty/": "",
	})
	tests := []struct {
		q    GlobQuery
		want []string
	}{
		{GlobQuery{Pattern: "*", IncludeDirs: true}, []string{".gitignore", "cmd/", "empty/"}},
		{GlobQuery{Pattern: "*"}, []string{".gitignore"}},
		{GlobQuery{Pattern: "**/*.go"}, []string{"cmd/tool/main.go"}},
		{GlobQuery{Pattern: "node_modules/**/*.go"}, []string{"node_modules/lib/x.go"}},
		{GlobQuery{Pattern: "nowhere/**"}, nil},
	}
	for _, tt := range tests {
		tt.q.Limit = 100
		if got, _ := globPaths(t, root, tt.q); !slices.Equal(got, tt.want) {
			t.Errorf("%+v: got %q, want %q", tt.q, got, tt.want)
		}
	}
}

func TestGlobDoesNotFollowSymlinks(t *testing.T) {
	outside := t.TempDir()
	testkit.WriteTree(t, outside, map[string]string{"escape.go": ""})
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{"in.go": ""})
	testkit.SymlinkOrSkip(t, outside, filepath.Join(root, "out"))
	if got, _ := globPaths(t, root, GlobQuery{Pattern: "**/*.go", Limit: 10}); !slices.Equal(got, []string{"in.go"}) {
		t.Errorf("got %q, want only in.go", got)
	}
}

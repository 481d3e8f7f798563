package search

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

func TestGrepHonoursIgnoreRules(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, grepProject)
	testkit.WriteFile(t, filepath.Join(root, "data.bin"), "needle\x00\x01\x02binary")
	m := grep(t, Query{Pattern: "needle"}, root)
	want := []string{
		".env.example",
		".hidden/notes.md",
		"docs/build/page.md",
		"lib/deep/keep.log",
		"lib/important.log",
		"main.go",
		"web/app.ts",
	}
	if got := paths(m); !slices.Equal(got, want) {
		t.Errorf("files:\ngot  %q\nwant %q", got, want)
	}
	wantSkips := []Skip{
		{Path: ".env", Reason: "it is an environment file, which usually holds secrets"},
		{Path: "certs/server.pem", Reason: "it looks like a private key or certificate bundle"},
	}
	if !slices.Equal(m.Secrets, wantSkips) {
		t.Errorf("secrets = %+v, want %+v", m.Secrets, wantSkips)
	}
	if m.TotalFiles != len(want) || m.Total != len(want) {
		t.Errorf("totals: %d files, %d lines; want %d", m.TotalFiles, m.Total, len(want))
	}
}

func TestGrepFromSubdirectoryUsesParentRules(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, grepProject)
	g, err := NewGrep(Query{Pattern: "needle", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	m, err := g.Run(context.Background(), Options{WorkDir: root}, filepath.Join(root, "lib"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(m), []string{"lib/deep/keep.log", "lib/important.log"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestGrepNewestFirst(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{"a.txt": "hit\n", "b.txt": "hit\n", "c.txt": "hit\n"})
	testkit.Touch(t, root, "a.txt", time.Hour)
	testkit.Touch(t, root, "c.txt", 2*time.Hour)
	if got, want := paths(grep(t, Query{Pattern: "hit"}, root)), []string{"c.txt", "a.txt", "b.txt"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestGrepPages(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{"a.txt": "x\nx\n", "b.txt": "x\nx\n", "c.txt": "x\nx\n"})
	tests := []struct {
		name string
		q    Query
		want []string // path:line of each kept line, or paths
	}{
		{"files", Query{Pattern: "x", Offset: 1, Limit: 1}, []string{"b.txt"}},
		{"lines across files", Query{Pattern: "x", Mode: Content, Offset: 1, Limit: 3}, []string{"a.txt:2", "b.txt:1", "b.txt:2"}},
		{"past the end", Query{Pattern: "x", Offset: 9, Limit: 3}, nil},
		{"totals only", Query{Pattern: "x", Mode: Content}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := NewGrep(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			m, err := g.Run(context.Background(), Options{WorkDir: root}, root)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range m.Files {
				if tt.q.Mode != Content {
					got = append(got, f.Path)
				}
				for _, l := range f.Lines {
					got = append(got, f.Path+":"+strconv.Itoa(l.Num))
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("page = %q, want %q", got, tt.want)
			}
			wantTotal := 3
			if tt.q.Mode == Content {
				wantTotal = 6
			}
			if m.TotalFiles != 3 || m.Total != wantTotal {
				t.Errorf("totals: %d files, %d units", m.TotalFiles, m.Total)
			}
		})
	}
}

func TestGrepLongLinesAreCut(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{"min.js": strings.Repeat("a", 200000) + "needle" + strings.Repeat("b", 10) + "\n"})
	m := grep(t, Query{Pattern: "needle", Mode: Content}, root)
	if len(m.Files) != 1 || len(m.Files[0].Lines) != 1 {
		t.Fatalf("got %+v", m.Files)
	}
	text := m.Files[0].Lines[0].Text
	if !strings.HasPrefix(text, "aaaa") || !strings.HasSuffix(text, " [...]") || len(text) > MaxLineBytes+10 {
		t.Errorf("line of %d bytes: %.20q ... %q", len(text), text, text[max(0, len(text)-20):])
	}
}

func TestGrepDoesNotFollowSymlinks(t *testing.T) {
	outside := t.TempDir()
	testkit.WriteTree(t, outside, map[string]string{"secret.txt": "needle outside the root\n"})
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{"inside.txt": "needle inside\n"})
	testkit.SymlinkOrSkip(t, outside, filepath.Join(root, "linked-dir"))
	testkit.SymlinkOrSkip(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "linked-file.txt"))
	if got := paths(grep(t, Query{Pattern: "needle"}, root)); !slices.Equal(got, []string{"inside.txt"}) {
		t.Errorf("got %q, want only inside.txt", got)
	}
}

func TestGrepRefusesBadQueries(t *testing.T) {
	tests := []struct {
		q    Query
		want string
	}{
		{Query{}, "empty"},
		{Query{Pattern: "a("}, "invalid regular expression"},
		{Query{Pattern: `a\nb`}, "set multiline to true"},
		{Query{Pattern: "a", Type: "cobol"}, "unknown file type"},
		{Query{Pattern: "a", Glob: "#x"}, "invalid glob"},
		{Query{Pattern: "a", Before: -1}, "must not be negative"},
	}
	for _, tt := range tests {
		if _, err := NewGrep(tt.q); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want an error containing %q", tt.q, err, tt.want)
		}
	}
}

func TestGrepStopsWithItsContext(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{"a.txt": "needle\n"})
	g, err := NewGrep(Query{Pattern: "needle", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Run(ctx, Options{WorkDir: root}, root); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if _, err := g.Run(context.Background(), Options{}, filepath.Join(root, "nope")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing root: err = %v", err)
	}
}

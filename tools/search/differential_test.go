package search

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

// describe writes out everything a Grep result holds except the skipped secrets: the pure-Go
// engine lists every secret-looking file it passed, while rg is told to skip them unseen.
func describe(m *Matches, err error) string {
	if err != nil {
		return "error"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "files=%d total=%d matches=%d too-large=%q\n", m.TotalFiles, m.Total, m.TotalMatches, m.TooLarge)
	for _, f := range m.Files {
		fmt.Fprintf(&b, "%s mtime=%d matches=%d units=%d\n", f.Path, f.ModTime.UnixNano(), f.Matches, f.units)
		for _, l := range f.Lines {
			fmt.Fprintf(&b, "  %d %v %q\n", l.Num, l.Match, l.Text)
		}
	}
	return b.String()
}

// describeListing writes out a Glob result.
func describeListing(l *Listing, err error) string {
	if err != nil {
		return "error"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "total=%d\n", l.Total)
	for _, e := range l.Entries {
		fmt.Fprintf(&b, "%s dir=%v mtime=%d\n", e.Path, e.IsDir, e.ModTime.UnixNano())
	}
	return b.String()
}

// TestRipgrepAndGoEnginesAgree runs the same searches through both engines. It needs rg
// on PATH and is skipped otherwise, unless KIMI_RUN_REQUIRE_RG is set (CI installs rg and
// sets it, so the test cannot skip there unnoticed).
func TestRipgrepAndGoEnginesAgree(t *testing.T) {
	rg := LookRipgrep(os.Getenv("PATH"))
	if rg == "" {
		if os.Getenv("KIMI_RUN_REQUIRE_RG") != "" {
			t.Fatal("rg is not on PATH, and KIMI_RUN_REQUIRE_RG says this test must run")
		}
		t.Skip("rg is not installed")
	}
	root := t.TempDir()
	files := maps.Clone(grepProject)
	delete(files, ".env.example") // rg's exclusion of .env.* cannot spare it
	maps.Copy(files, map[string]string{
		".git/HEAD":              "ref\n",
		".git/info/exclude":      "excluded.txt\n",
		"excluded.txt":           "needle excluded by .git/info/exclude\n",
		"nested/.git/HEAD":       "ref\n",
		"nested/inner.log":       "needle in a nested repository's log\n",
		"nested/.gitignore":      "skip.md\n",
		"nested/skip.md":         "needle skipped\n",
		"multi.txt":              "alpha needle\nbeta\ngamma needle needle\n\ndelta\nepsilon\nzeta needle\n",
		"crlf.txt":               "needle one\r\nneedle two\r\n",
		"lib/deep/code.go":       "package deep\n\nfunc Needle() string {\n\treturn \"needle\"\n}\n",
		"web/components/list.ts": "export function needle(): void {}\n",
	})
	testkit.WriteTree(t, root, files)
	testkit.Touch(t, root, "multi.txt", time.Hour)
	testkit.Touch(t, root, "lib/deep/code.go", 2*time.Hour)
	testkit.WriteFile(t, filepath.Join(root, "blob.bin"), "\x00\x01needle")
	if err := os.Symlink(filepath.Join(root, "lib"), filepath.Join(root, "lib-link")); err != nil {
		t.Logf("no symbolic link in the fixture: %v", err)
	}

	grepCalls := []struct {
		q    Query
		path string // below root; "" for root
	}{
		{q: Query{Pattern: "needle"}},
		{q: Query{Pattern: "needle", Mode: Content}},
		{q: Query{Pattern: "needle", Mode: Content, Before: 1, After: 1}},
		{q: Query{Pattern: "needle", Mode: Content, Before: 2}},
		{q: Query{Pattern: "NEEDLE", IgnoreCase: true, Mode: CountMatches}},
		{q: Query{Pattern: "needle", Type: "go", Mode: Content}},
		{q: Query{Pattern: "needle", Type: "ts"}},
		{q: Query{Pattern: "needle", Glob: "*.log"}},
		{q: Query{Pattern: "needle", Glob: "!*.md"}},
		{q: Query{Pattern: "needle", Glob: "lib/**"}},
		{q: Query{Pattern: "needle"}, path: "lib"},
		{q: Query{Pattern: "needle", Mode: Content}, path: "multi.txt"},
		{q: Query{Pattern: `gamma.*\n\ndelta`, Multiline: true, Mode: Content}},
		{q: Query{Pattern: `needle\s+needle`, Mode: CountMatches}},
		{q: Query{Pattern: `^needle \w+$`, Mode: Content}},
		{q: Query{Pattern: "needle", Mode: Content, Offset: 2, Limit: 3}},
		{q: Query{Pattern: "needle", Glob: "*.pem"}}, // a selecting glob must not reach secrets
	}
	for _, c := range grepCalls {
		if c.q.Limit == 0 {
			c.q.Limit = 250
		}
		g, err := NewGrep(c.q)
		if err != nil {
			t.Fatalf("%+v: %v", c.q, err)
		}
		target := filepath.Join(root, filepath.FromSlash(c.path))
		goOut := describe(g.Run(context.Background(), Options{WorkDir: root}, target))
		rgOut := describe(g.Run(context.Background(), Options{WorkDir: root, Ripgrep: rg}, target))
		if goOut != rgOut {
			t.Errorf("Grep %+v in %q differs:\n--- go\n%s\n--- rg\n%s", c.q, c.path, goOut, rgOut)
		}
	}

	globCalls := []GlobQuery{
		{Pattern: "**/*", IncludeDirs: true},
		{Pattern: "**/*"},
		{Pattern: "**/*.log", IncludeDirs: true},
		{Pattern: "lib/**", IncludeDirs: true},
		{Pattern: "*", IncludeDirs: true},
		{Pattern: "node_modules/**", IncludeDirs: true},
	}
	for _, q := range globCalls {
		q.Limit = 1000
		goOut := describeListing(Glob(context.Background(), Options{WorkDir: root}, q, root))
		rgOut := describeListing(Glob(context.Background(), Options{WorkDir: root, Ripgrep: rg}, q, root))
		if goOut != rgOut {
			t.Errorf("Glob %+v differs:\n--- go\n%s\n--- rg\n%s", q, goOut, rgOut)
		}
	}
}

package search

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The benchmarks search the Go source tree (about 10,000 files); scripts/bench-search.sh
// runs them and times rg on the same tree with the same queries.
const (
	benchLiteral = "ErrUnexpectedEOF"
	benchRegex   = `func \w+\(ctx context\.Context`
	benchGlob    = "**/*.go"
)

// benchTree returns $GOROOT/src as the go command reports it.
func benchTree(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no Go source tree at %s", src)
	}
	return src
}

// benchEngines runs search once per iteration with the pure-Go engine and, when rg is
// installed, through rg for comparison.
func benchEngines(b *testing.B, search func(ctx context.Context, opts Options, root string) error) {
	src := benchTree(b)
	engines := []struct{ name, rg string }{{"go", ""}}
	if rg := LookRipgrep(os.Getenv("PATH")); rg != "" {
		engines = append(engines, struct{ name, rg string }{"rg", rg})
	}
	for _, e := range engines {
		b.Run("engine="+e.name, func(b *testing.B) {
			opts := Options{WorkDir: src, Ripgrep: e.rg}
			b.ReportAllocs()
			for b.Loop() {
				if err := search(context.Background(), opts, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchGrep benchmarks one query, keeping as many results as the Grep tool does at most.
func benchGrep(b *testing.B, q Query) {
	q.Limit = 10000
	g, err := NewGrep(q)
	if err != nil {
		b.Fatal(err)
	}
	benchEngines(b, func(ctx context.Context, opts Options, root string) error {
		_, err := g.Run(ctx, opts, root)
		return err
	})
}

func BenchmarkGrepLiteral(b *testing.B) { benchGrep(b, Query{Pattern: benchLiteral}) }

func BenchmarkGrepRegex(b *testing.B) { benchGrep(b, Query{Pattern: benchRegex}) }

func BenchmarkGrepContent(b *testing.B) { benchGrep(b, Query{Pattern: benchLiteral, Mode: Content}) }

func BenchmarkGlob(b *testing.B) {
	benchEngines(b, func(ctx context.Context, opts Options, root string) error {
		_, err := Glob(ctx, opts, GlobQuery{Pattern: benchGlob, IncludeDirs: true, Limit: 1000}, root)
		return err
	})
}

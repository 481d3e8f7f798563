package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The benchmarks search the Go source tree (about 10,000 files); scripts/bench-search.sh
// runs them and times rg on the same tree with the same queries.
const (
	benchLiteral = "ErrUnexpectedEOF"
	benchRegex   = `func \w+\(ctx context\.Context`
	benchGlob    = "**/*.go"
)

func benchTree(b *testing.B) string {
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no Go source tree at %s", src)
	}
	return src
}

// benchTool runs one tool call per iteration with the pure-Go engine and, when rg is
// installed, through rg for comparison.
func benchTool(b *testing.B, newTool func(Env) Tool, args map[string]any) {
	src := benchTree(b)
	raw, err := json.Marshal(args)
	if err != nil {
		b.Fatal(err)
	}
	engines := []struct{ name, rg string }{{"go", ""}}
	if rg := LookRipgrep(); rg != "" {
		engines = append(engines, struct{ name, rg string }{"rg", rg})
	}
	for _, e := range engines {
		b.Run("engine="+e.name, func(b *testing.B) {
			tool := newTool(Env{WorkDir: src, Ripgrep: e.rg})
			b.ReportAllocs()
			for b.Loop() {
				res, err := tool.Run(context.Background(), raw)
				if err != nil || res.IsError {
					b.Fatalf("%v %s", err, res.Output)
				}
			}
		})
	}
}

func BenchmarkGrepLiteral(b *testing.B) {
	benchTool(b, NewGrep, map[string]any{"pattern": benchLiteral, "head_limit": 0})
}

func BenchmarkGrepRegex(b *testing.B) {
	benchTool(b, NewGrep, map[string]any{"pattern": benchRegex, "head_limit": 0})
}

func BenchmarkGrepContent(b *testing.B) {
	benchTool(b, NewGrep, map[string]any{"pattern": benchLiteral, "output_mode": "content", "head_limit": 0})
}

func BenchmarkGlob(b *testing.B) {
	benchTool(b, NewGlob, map[string]any{"pattern": benchGlob})
}

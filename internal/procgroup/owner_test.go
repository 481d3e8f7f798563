package procgroup

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyProcgroupHandlesGroups keeps this package the one place that starts and signals
// the process groups of kimi-run's children (Shell, MCP servers, hooks): outside it and the
// test helpers, no non-test file sets SysProcAttr, calls syscall.Kill or runs taskkill. Two
// copies of that code are how Shell and MCP came to disagree on whether a zombie runs.
func TestOnlyProcgroupHandlesGroups(t *testing.T) {
	root := filepath.Join("..", "..")
	skip := map[string]bool{
		filepath.Join(root, "internal", "procgroup"): true,
		filepath.Join(root, "internal", "testkit"):   true, // tests' own checks on processes
	}
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skip[path] || d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				x, _ := n.X.(*ast.Ident)
				if n.Sel.Name == "SysProcAttr" || (n.Sel.Name == "Kill" && x != nil && (x.Name == "syscall" || x.Name == "unix")) {
					t.Errorf("%s: %s.%s: start and signal child process groups through procgroup", fset.Position(n.Pos()), exprName(n.X), n.Sel.Name)
				}
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && s == "taskkill" {
					t.Errorf("%s: taskkill: end process trees through procgroup", fset.Position(n.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("looked at %d files only: is %s the module root?", files, root)
	}
}

func exprName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "…"
}

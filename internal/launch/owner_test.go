package launch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyLaunchStartsChildren keeps this package the one place that starts and signals
// kimi-run's children (Shell, hooks, MCP servers, rg): outside it and the test helpers, no
// non-test file sets SysProcAttr, calls syscall.Kill, runs taskkill or starts a program
// (exec.Command, os.StartProcess, syscall.ForkExec). Two copies of that code are how Shell
// and MCP came to disagree on whether a zombie runs, and how MCP servers and rg came to
// run unconfined while Shell was confined (issue 26).
func TestOnlyLaunchStartsChildren(t *testing.T) {
	root := filepath.Join("..", "..")
	skip := map[string]bool{
		filepath.Join(root, "internal", "launch"):  true,
		filepath.Join(root, "internal", "testkit"): true, // tests' own checks on processes
	}
	// What starts a program, and the few files that may: tools the release build runs,
	// not children of a run.
	starts := map[string]bool{"exec.Command": true, "exec.CommandContext": true, "os.StartProcess": true,
		"syscall.ForkExec": true, "syscall.StartProcess": true, "syscall.Exec": true, "unix.Exec": true}
	allowed := map[string]bool{}
	for _, p := range allowedStarters {
		allowed[filepath.ToSlash(filepath.Join(root, p))] = true
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
			// A directory with a go.mod of its own (scripts/) is another module: release
			// tools, not code of kimi-run's.
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
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
					t.Errorf("%s: %s.%s: start and signal children through internal/launch", fset.Position(n.Pos()), exprName(n.X), n.Sel.Name)
				}
				if x != nil && starts[x.Name+"."+n.Sel.Name] && !allowed[filepath.ToSlash(path)] {
					t.Errorf("%s: %s.%s: start children through internal/launch", fset.Position(n.Pos()), x.Name, n.Sel.Name)
				}
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && s == "taskkill" {
					t.Errorf("%s: taskkill: end process trees through internal/launch", fset.Position(n.Pos()))
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

// allowedStarters are the non-test files outside internal/launch that start programs of
// their own: test servers, never a run's children.
var allowedStarters = []string{"internal/mcptest/cmd/mcp-test-server/main.go"}

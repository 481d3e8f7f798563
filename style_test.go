package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// maxFuncLines is the longest a function of the product may be, from its func line to its
// closing brace (docs/design.md, "Style the tests hold").
const maxFuncLines = 100

// flatDispatches are the functions allowed past maxFuncLines: flat dispatches (one case
// per kind, nothing else) that docs/design.md names, by "dir/file.go:Func". None today.
var flatDispatches = map[string]bool{}

// TestFunctionsStaySmall holds issue 28's rule: no function of the product (non-test Go
// files, every module of the tree) over maxFuncLines lines unless docs/design.md names it
// as a flat dispatch. A long function is split into named steps.
func TestFunctionsStaySmall(t *testing.T) {
	fset := token.NewFileSet()
	productFiles(t, fset, parser.SkipObjectResolution, func(path string, f *ast.File) {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) > 0 {
				name = recvName(fn.Recv.List[0].Type) + "." + name
			}
			key := filepath.ToSlash(path) + ":" + name
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if lines > maxFuncLines && !flatDispatches[key] {
				t.Errorf("%s is %d lines, more than %d: split it into named steps", key, lines, maxFuncLines)
			}
		}
	})
}

// recvName is a method's receiver type, without a pointer or type parameters.
func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}

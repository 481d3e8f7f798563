package testkit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"testing"

	"github.com/kimi-run/kimi-run/event"
)

// SwitchedTypes returns the event types a renderer handles: those whose payload (event.X
// or *event.X) a case of a type switch names, in the functions or methods called one of
// funcs in the Go file path. Reading the source keeps the renderer free of test hooks.
func SwitchedTypes(t testing.TB, path string, funcs ...string) map[event.Type]bool {
	t.Helper()
	byName := map[string]event.Type{}
	for _, p := range event.Registry() {
		byName[reflect.TypeOf(p).Name()] = p.Type()
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	handled := map[event.Type]bool{}
	found := 0
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil || !slices.Contains(funcs, fn.Name.Name) {
			continue
		}
		found++
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSwitchStmt)
			if !ok {
				return true
			}
			for _, c := range ts.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					if star, ok := e.(*ast.StarExpr); ok {
						e = star.X
					}
					sel, ok := e.(*ast.SelectorExpr)
					if !ok {
						continue
					}
					if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "event" {
						if typ, ok := byName[sel.Sel.Name]; ok {
							handled[typ] = true
						}
					}
				}
			}
			return true
		})
	}
	if found != len(funcs) {
		t.Fatalf("%s: found %d of the functions %v", path, found, funcs)
	}
	return handled
}

// EveryTypeDecided fails t for each registered event type that renderer (the Renderer r)
// neither handles nor is said to leave out by the registry in event/payload.go, or both: a
// new event type makes every renderer decide what to do with it, on its registry line.
func EveryTypeDecided(t testing.TB, renderer string, r event.Renderer, handled map[event.Type]bool) {
	t.Helper()
	skipped := event.SkippedBy(r)
	for _, p := range event.Registry() {
		typ := p.Type()
		switch in := slices.Contains(skipped, typ); {
		case handled[typ] && in:
			t.Errorf("%s handles the %q event, yet its line in event/payload.go's registry says it leaves it out", renderer, typ)
		case !handled[typ] && !in:
			t.Errorf("%s does not handle the %q event: give it a case, or say on the type's line in event/payload.go's registry that it leaves it out", renderer, typ)
		}
	}
}

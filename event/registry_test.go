package event

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestRegistryListsEveryPayload: a payload struct that has a Type method but no line in the
// registry, or a Type constant that no payload returns, fails here, so the tests that check
// the schema, the docs and the renderers against the registry see every type.
func TestRegistryListsEveryPayload(t *testing.T) {
	withMethod, consts := declared(t)
	var names []string
	seen := map[Type]string{}
	for _, p := range Registry() {
		rt := reflect.TypeOf(p)
		if rt.Kind() != reflect.Struct {
			t.Errorf("registry entry %v is a %s, want a payload struct by value", rt, rt.Kind())
			continue
		}
		names = append(names, rt.Name())
		typ := p.Type()
		if other, dup := seen[typ]; dup {
			t.Errorf("%s and %s both have type %q", other, rt.Name(), typ)
		}
		seen[typ] = rt.Name()
		if !slices.Contains(consts, string(typ)) {
			t.Errorf("%s.Type() = %q, which is not one of the Type constants", rt.Name(), typ)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, withMethod) {
		t.Errorf("payloads with a Type method and the registry differ:\n methods:  %v\n registry: %v", withMethod, names)
	}
	for _, c := range consts {
		if _, ok := seen[Type(c)]; !ok {
			t.Errorf("the Type constant %q has no payload in the registry", c)
		}
	}
}

// TestRegistryPayloadsEncodeAsObjects: every payload's fields are written flat beside the
// envelope, so each must encode as a JSON object, and none may claim an envelope key.
func TestRegistryPayloadsEncodeAsObjects(t *testing.T) {
	for _, p := range Registry() {
		b, err := Event{Data: p}.MarshalJSON()
		if err != nil {
			t.Errorf("%s: %v", p.Type(), err)
			continue
		}
		if !strings.HasPrefix(string(b), `{"type":"`+string(p.Type())+`","ts":`) {
			t.Errorf("%s: encodes as %s", p.Type(), b)
		}
		rt := reflect.TypeOf(p)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if name == "type" || name == "ts" || name == "parent_tool_call_id" {
				t.Errorf("%s: field %s is written as the envelope's %q", p.Type(), rt.Field(i).Name, name)
			}
		}
	}
}

// declared reads this package's source: the receivers of every Type() Type method, sorted,
// and the values of the constants of type Type.
func declared(t *testing.T) (withMethod, consts []string) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil || d.Name.Name != "Type" || d.Type.Results == nil || len(d.Type.Results.List) != 1 {
					continue
				}
				if res, ok := d.Type.Results.List[0].Type.(*ast.Ident); !ok || res.Name != "Type" {
					continue
				}
				recv := d.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				if id, ok := recv.(*ast.Ident); ok && id.Name != "Event" {
					withMethod = append(withMethod, id.Name)
				}
			case *ast.GenDecl:
				if d.Tok != token.CONST {
					continue
				}
				for _, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Type" {
						continue
					}
					for _, v := range vs.Values {
						if lit, ok := v.(*ast.BasicLit); ok {
							consts = append(consts, strings.Trim(lit.Value, `"`))
						}
					}
				}
			}
		}
	}
	slices.Sort(withMethod)
	if len(withMethod) == 0 || len(consts) == 0 {
		t.Fatal("found no payloads or no Type constants in the package's source")
	}
	return withMethod, consts
}

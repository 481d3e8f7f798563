package eventschema

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// comments holds the doc comments of a package's struct types and their fields, as
// paragraphs of one line each.
type comments struct {
	types  map[string][]string // type name → paragraphs
	fields map[string][]string // "Type.Field" → paragraphs
}

// readComments parses the non-test Go files of dir for the doc comments of its struct
// types and of their fields. A field's doc comment is the one above it, else the one
// behind it on its line.
func readComments(dir string) (comments, error) {
	c := comments{types: map[string][]string{}, fields: map[string][]string{}}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return c, err
	}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return c, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return c, fmt.Errorf("parse %s: %w", name, err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				c.types[ts.Name.Name] = paragraphs(doc)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fld := range st.Fields.List {
					doc := fld.Doc
					if doc == nil {
						doc = fld.Comment
					}
					for _, n := range fld.Names {
						c.fields[ts.Name.Name+"."+n.Name] = paragraphs(doc)
					}
				}
			}
		}
	}
	return c, nil
}

// paragraphs splits a comment into its paragraphs, each joined into one line.
func paragraphs(g *ast.CommentGroup) []string {
	if g == nil {
		return nil
	}
	var out []string
	for p := range strings.SplitSeq(strings.TrimSpace(g.Text()), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

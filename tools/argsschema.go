package tools

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// argsSchema derives the JSON schema of a tool's arguments from In. google/jsonschema-go
// infers the types, the properties (in field order) and which are required (those without
// omitempty); this package's struct tags add the rest: description and enum (comma-
// separated values).
func argsSchema[In any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, err
	}
	if err := applyTags(reflect.TypeFor[In](), s); err != nil {
		return nil, err
	}
	return s, nil
}

// applyTags walks t and its schema s together, adding each field's description and enum
// tags to its property. It also drops the "null" that inference allows for pointers and
// slices: an absent argument says the same, and the model is offered plain types.
func applyTags(t reflect.Type, s *jsonschema.Schema) error {
	if s == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if i := slices.Index(s.Types, "null"); i >= 0 && len(s.Types) == 2 {
		s.Type, s.Types = s.Types[1-i], nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return applyTags(t.Elem(), s.Items)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			p := s.Properties[name]
			if !f.IsExported() || name == "-" || p == nil {
				continue
			}
			p.Description = f.Tag.Get("description")
			if enum := f.Tag.Get("enum"); enum != "" {
				for v := range strings.SplitSeq(enum, ",") {
					p.Enum = append(p.Enum, v)
				}
			}
			if err := applyTags(f.Type, p); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	}
	return nil
}

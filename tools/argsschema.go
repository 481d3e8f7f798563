package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// argsSchema derives the JSON schema of a tool's arguments from In. google/jsonschema-go
// infers the types, the properties (in field order) and which are required (those without
// omitempty); this package's struct tags add the rest: description, enum (comma-separated
// values), default (a JSON value), minimum, maximum, minItems, maxItems, minLength, and
// null:"true", which offers null beside the field's type (Kimi CLI's optional parameters).
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

// applyTags walks t and its schema s together, adding each field's tags to its property.
// It also drops the "null" that inference allows for pointers and slices, unless the field
// says null:"true": an absent argument says the same, and the model is offered the types
// Kimi CLI offers.
func applyTags(t reflect.Type, s *jsonschema.Schema) error {
	if s == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	dropNull(s)
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
			if err := applyTags(f.Type, p); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
			if err := fieldTags(f.Tag, p); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	}
	return nil
}

// dropNull makes a ["null", T] type plain T.
func dropNull(s *jsonschema.Schema) {
	if i := slices.Index(s.Types, "null"); i >= 0 && len(s.Types) == 2 {
		s.Type, s.Types = s.Types[1-i], nil
	}
}

// fieldTags adds a field's own tags to its property p. With null:"true" the property
// becomes anyOf the field's schema and null, as Kimi CLI's schemas spell an optional
// parameter; its description and default stay outside.
func fieldTags(tag reflect.StructTag, p *jsonschema.Schema) error {
	if enum := tag.Get("enum"); enum != "" {
		for v := range strings.SplitSeq(enum, ",") {
			p.Enum = append(p.Enum, v)
		}
	}
	for _, b := range []struct {
		key string
		set func(float64)
	}{
		{"minimum", func(v float64) { p.Minimum = &v }},
		{"maximum", func(v float64) { p.Maximum = &v }},
		{"minItems", func(v float64) { n := int(v); p.MinItems = &n }},
		{"maxItems", func(v float64) { n := int(v); p.MaxItems = &n }},
		{"minLength", func(v float64) { n := int(v); p.MinLength = &n }},
	} {
		if text, ok := tag.Lookup(b.key); ok {
			v, err := strconv.ParseFloat(text, 64)
			if err != nil {
				return fmt.Errorf("%s %q: %w", b.key, text, err)
			}
			b.set(v)
		}
	}
	if tag.Get("null") == "true" {
		branch := *p
		*p = jsonschema.Schema{AnyOf: []*jsonschema.Schema{&branch, {Type: "null"}}}
	}
	p.Description = tag.Get("description")
	if d, ok := tag.Lookup("default"); ok {
		if !json.Valid([]byte(d)) {
			return fmt.Errorf("default %q is not JSON", d)
		}
		p.Default = json.RawMessage(d)
	}
	return nil
}

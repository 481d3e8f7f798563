package answerschema

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// jsonTypes are the values "type" may take in a JSON Schema.
var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// checkSchemaValues finds keyword values that parse but mean nothing, which the validator
// would otherwise accept and then fail every answer against (`"type": "objec"`, a negative
// minLength). It walks every subschema and names the first problem by its JSON pointer.
func checkSchemaValues(s *jsonschema.Schema) error {
	return walkSchema(s, "", func(s *jsonschema.Schema, at string) error {
		types := s.Types
		if s.Type != "" {
			types = []string{s.Type}
		}
		for i, t := range types {
			if !slices.Contains(jsonTypes, t) {
				return fmt.Errorf("%s: \"type\" is %q; a type is one of %s", where(at), t, strings.Join(jsonTypes, ", "))
			}
			if slices.Contains(types[:i], t) {
				return fmt.Errorf("%s: \"type\" lists %q twice", where(at), t)
			}
		}
		for name, n := range map[string]*int{"minLength": s.MinLength, "maxLength": s.MaxLength, "minItems": s.MinItems,
			"maxItems": s.MaxItems, "minContains": s.MinContains, "maxContains": s.MaxContains,
			"minProperties": s.MinProperties, "maxProperties": s.MaxProperties} {
			if n != nil && *n < 0 {
				return fmt.Errorf("%s: %q is %d; it must not be negative", where(at), name, *n)
			}
		}
		if s.MultipleOf != nil && *s.MultipleOf <= 0 {
			return fmt.Errorf("%s: \"multipleOf\" is %v; it must be greater than 0", where(at), *s.MultipleOf)
		}
		return nil
	})
}

func where(at string) string {
	if at == "" {
		return "at the top"
	}
	return "at " + at
}

var schemaPtr = reflect.TypeFor[*jsonschema.Schema]()

// walkSchema calls f on s and on every subschema it holds (any field of type *Schema,
// []*Schema or map[string]*Schema), depth first, with its JSON pointer.
func walkSchema(s *jsonschema.Schema, at string, f func(*jsonschema.Schema, string) error) error {
	if s == nil {
		return nil
	}
	if err := f(s, at); err != nil {
		return err
	}
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		field, fv := v.Type().Field(i), v.Field(i)
		name := jsonName(field)
		switch {
		case field.Type == schemaPtr:
			if err := walkSchema(fv.Interface().(*jsonschema.Schema), at+"/"+name, f); err != nil {
				return err
			}
		case field.Type.Kind() == reflect.Slice && field.Type.Elem() == schemaPtr:
			for j := range fv.Len() {
				if err := walkSchema(fv.Index(j).Interface().(*jsonschema.Schema), fmt.Sprintf("%s/%s/%d", at, name, j), f); err != nil {
					return err
				}
			}
		case field.Type.Kind() == reflect.Map && field.Type.Elem() == schemaPtr:
			keys := make([]string, 0, fv.Len())
			for _, k := range fv.MapKeys() {
				keys = append(keys, k.String())
			}
			sort.Strings(keys) // the first problem found is the same every run
			for _, k := range keys {
				sub := fv.MapIndex(reflect.ValueOf(k)).Interface().(*jsonschema.Schema)
				if err := walkSchema(sub, at+"/"+name+"/"+k, f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// jsonName is the keyword a Schema field is written as; fields the library reads by hand
// ("items", "dependencies") have no tag and are named after the field.
func jsonName(f reflect.StructField) string {
	if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag != "" && tag != "-" {
		return tag
	}
	switch f.Name {
	case "ItemsArray":
		return "items"
	case "DependencySchemas":
		return "dependencies"
	}
	return strings.ToLower(f.Name[:1]) + f.Name[1:]
}

package eventschema

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The struct tags a payload field may carry beside json, each a JSON Schema keyword. On a
// slice they apply to its items.
//
//	enum:"a,b"        the value is one of these (integers for an integer field)
//	minimum:"1"       an integer or number at least this
//	maximum:"599"     an integer or number at most this
//	minLength:"1"     a string at least this long
//	pattern:"^…$"     a string this regular expression matches
//	types:"object,string"  any of these JSON types (written as anyOf: ajv's strict mode
//	                  refuses a list of types)
//
// and one that is not a keyword: volatile:"true" marks a field whose value differs from
// one run of the same conversation to the next (a duration, the session id), which a
// replay's comparison of the events leaves out.
var keywordTags = []string{"enum", "minimum", "maximum", "minLength", "pattern", "types"}

// tagKeys returns the keys of a struct tag in order, or an error when it does not have the
// conventional key:"value" form.
func tagKeys(tag reflect.StructTag) ([]string, error) {
	var keys []string
	rest := strings.TrimSpace(string(tag))
	for rest != "" {
		key, after, ok := strings.Cut(rest, `:"`)
		if !ok || key == "" || strings.ContainsAny(key, " \t\"") {
			return nil, fmt.Errorf("malformed struct tag %q", tag)
		}
		if _, ok := tag.Lookup(key); !ok {
			return nil, fmt.Errorf("malformed struct tag %q", tag)
		}
		keys = append(keys, key)
		// Skip the quoted value, escapes included.
		i := 0
		for i < len(after) && after[i] != '"' {
			if after[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(after) {
			return nil, fmt.Errorf("malformed struct tag %q", tag)
		}
		rest = strings.TrimSpace(after[i+1:])
	}
	return keys, nil
}

// applyKeywords adds the keyword tags of f to its property p (to p's items for a slice).
// An unknown tag, a value that does not parse or a keyword that does not fit the field's
// JSON type is an error: a typo must not pass as a constraint.
func applyKeywords(f reflect.StructField, p *jsonschema.Schema) error {
	keys, err := tagKeys(f.Tag)
	if err != nil {
		return err
	}
	target := p
	if f.Type.Kind() == reflect.Slice && p.Items != nil {
		target = p.Items
	}
	for _, key := range keys {
		if key == "json" || key == "volatile" {
			continue
		}
		val := f.Tag.Get(key)
		if err := applyKeyword(target, key, val); err != nil {
			return fmt.Errorf("tag %s:%q: %w", key, val, err)
		}
	}
	return nil
}

func applyKeyword(s *jsonschema.Schema, key, val string) error {
	switch key {
	case "enum":
		for v := range strings.SplitSeq(val, ",") {
			switch s.Type {
			case "string":
				s.Enum = append(s.Enum, v)
			case "integer":
				n, err := strconv.Atoi(v)
				if err != nil {
					return fmt.Errorf("%q is not an integer", v)
				}
				s.Enum = append(s.Enum, n)
			default:
				return fmt.Errorf("enum on a %q field", s.Type)
			}
		}
	case "minimum", "maximum":
		if s.Type != "integer" && s.Type != "number" {
			return fmt.Errorf("%s on a %q field", key, s.Type)
		}
		n, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return err
		}
		if key == "minimum" {
			s.Minimum = &n
		} else {
			s.Maximum = &n
		}
	case "minLength":
		if s.Type != "string" {
			return fmt.Errorf("minLength on a %q field", s.Type)
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return fmt.Errorf("not a length")
		}
		s.MinLength = &n
	case "pattern":
		if s.Type != "string" {
			return fmt.Errorf("pattern on a %q field", s.Type)
		}
		if _, err := regexp.Compile(val); err != nil {
			return err
		}
		s.Pattern = val
	case "types":
		if s.Type != "" || s.Types != nil {
			return fmt.Errorf("types on a field of JSON type %q: only a json.RawMessage may hold several", s.Type)
		}
		for t := range strings.SplitSeq(val, ",") {
			switch t {
			case "object", "array", "string", "number", "integer", "boolean", "null":
				s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: t})
			default:
				return fmt.Errorf("%q is not a JSON type", t)
			}
		}
	default:
		return fmt.Errorf("unknown tag: the event payloads know json, volatile, %s", strings.Join(keywordTags, ", "))
	}
	return nil
}

package eventschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kimi-run/kimi-run/event"
)

// UpdateCommand rewrites the generated files from event/: docs/events.schema.json whole and
// the marked parts of docs/events.md.
const UpdateCommand = "go test ./internal/eventschema -run TestGenerated -update"

// Generated is what Generate derives from the event package.
type Generated struct {
	// Schema is docs/events.schema.json.
	Schema []byte
	// Docs are the generated parts of docs/events.md by marker name ("types", "fields").
	Docs map[string]string
}

// eventDef is one registered event type, ready to be written.
type eventDef struct {
	typ    event.Type
	doc    []string           // the payload's doc comment, its Go name cut off
	schema *jsonschema.Schema // its $defs entry, the envelope included
	rows   []row              // its fields, nested ones after their parent
}

// row is one field of an event as docs/events.md lists it.
type row struct {
	path     string // e.g. "mcp_servers[].name"
	schema   *jsonschema.Schema
	required bool
}

// crossFieldRules are the rules no single field can carry, by event type: the generator's
// only per-type knowledge. An event type without one needs nothing here.
var crossFieldRules = map[event.Type]func(*jsonschema.Schema){
	// A result's status agrees with its exit code, and a failed run says why.
	event.TypeResult: func(s *jsonschema.Schema) {
		s.If = &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"exit_code": {Const: ptr[any](0)}}}
		s.Then = &jsonschema.Schema{
			Properties:    map[string]*jsonschema.Schema{"status": {Const: ptr[any]("success")}, "error": {Not: &jsonschema.Schema{}}},
			PropertyOrder: []string{"status", "error"},
		}
		s.Else = &jsonschema.Schema{
			Properties: map[string]*jsonschema.Schema{"status": {Const: ptr[any]("error")}},
			Required:   []string{"error"},
		}
	},
}

// Generate derives the event schema and the docs' tables from event.Registry and the doc
// comments and struct tags of the event package, whose source is in srcDir. Each payload
// and each of its fields must have a doc comment: it is the description a consumer reads.
func Generate(srcDir string) (Generated, error) {
	c, err := readComments(srcDir)
	if err != nil {
		return Generated{}, err
	}
	var defs []eventDef
	for _, p := range event.Registry() {
		d, err := define(p, c)
		if err != nil {
			return Generated{}, fmt.Errorf("event.%s: %w", reflect.TypeOf(p).Name(), err)
		}
		defs = append(defs, d)
	}
	schema, err := writeSchema(defs)
	if err != nil {
		return Generated{}, err
	}
	return Generated{Schema: schema, Docs: map[string]string{"types": typesTable(defs), "fields": fieldTables(defs)}}, nil
}

// define infers p's schema with jsonschema-go (properties in field order, additional
// properties refused, required unless omitempty), then adds the doc comments, the keyword
// tags, the envelope and any cross-field rule.
func define(p event.Payload, c comments) (eventDef, error) {
	rt := reflect.TypeOf(p)
	s, err := jsonschema.ForType(rt, &jsonschema.ForOptions{
		// Raw JSON is any JSON value unless a types tag narrows it.
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {}},
	})
	if err != nil {
		return eventDef{}, err
	}
	doc, ok := cutName(c.types[rt.Name()], rt.Name())
	if !ok {
		return eventDef{}, fmt.Errorf("its doc comment must start with %q and say when the event is written", rt.Name()+" ")
	}
	d := eventDef{typ: p.Type(), doc: doc}
	if d.rows, err = walk(rt, s, "", c); err != nil {
		return eventDef{}, err
	}
	s.Description = strings.Join(capitalized(doc), "\n\n")
	s.Properties["type"] = &jsonschema.Schema{Const: ptr[any](string(p.Type()))}
	s.Properties["ts"] = &jsonschema.Schema{Ref: "#/$defs/ts"}
	s.Properties["parent_tool_call_id"] = &jsonschema.Schema{Ref: "#/$defs/parent_tool_call_id"}
	s.PropertyOrder = append([]string{"type", "ts", "parent_tool_call_id"}, s.PropertyOrder...)
	s.Required = append([]string{"type", "ts"}, s.Required...)
	if rule := crossFieldRules[p.Type()]; rule != nil {
		rule(s)
	}
	d.schema = s
	return d, nil
}

// walk goes through type t and its inferred schema s together: each field's property gets
// its doc comment and keyword tags, and plain JSON types (the inference allows null for
// pointers and slices, which the payloads never write: a nil one is omitempty). It returns
// the rows of t's fields, nested fields after their parent.
func walk(t reflect.Type, s *jsonschema.Schema, path string, c comments) ([]row, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	dropNull(s)
	switch {
	case t.Kind() == reflect.Slice && s.Items != nil:
		return walk(t.Elem(), s.Items, path+"[]", c)
	case t.Kind() != reflect.Struct:
		return nil, nil
	}
	var rows []row
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
		where := t.Name() + "." + f.Name
		dropNull(p)
		doc := c.fields[where]
		if len(doc) == 0 {
			return nil, fmt.Errorf("field %s has no doc comment: it is the field's description", where)
		}
		p.Description = strings.Join(doc, " ")
		if err := applyKeywords(f, p); err != nil {
			return nil, fmt.Errorf("field %s: %w", where, err)
		}
		required := slices.Contains(s.Required, name)
		if path != "" {
			name = path + "." + name
		}
		rows = append(rows, row{path: name, schema: p, required: required})
		nested, err := walk(f.Type, p, name, c)
		if err != nil {
			return nil, err
		}
		rows = append(rows, nested...)
	}
	return rows, nil
}

// dropNull turns the inferred ["null", T] into T, for s and its items.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if i := slices.Index(s.Types, "null"); i >= 0 && len(s.Types) == 2 {
		s.Type, s.Types = s.Types[1-i], nil
	}
	dropNull(s.Items)
}

// cutName returns doc with its leading Go name cut off, or false when it does not start
// with it.
func cutName(doc []string, name string) ([]string, bool) {
	if len(doc) == 0 {
		return nil, false
	}
	rest, ok := strings.CutPrefix(doc[0], name+" ")
	if !ok || rest == "" {
		return nil, false
	}
	return append([]string{rest}, doc[1:]...), true
}

// capitalized returns doc with its first letter in upper case.
func capitalized(doc []string) []string {
	doc = slices.Clone(doc)
	if len(doc) > 0 {
		r, n := utf8.DecodeRuneInString(doc[0])
		doc[0] = string(unicode.ToUpper(r)) + doc[0][n:]
	}
	return doc
}

func ptr[T any](v T) *T { return &v }

// member is one key of a JSON object written in a chosen order.
type member struct {
	key   string
	value any
}

// object writes members as a JSON object in their order.
type object []member

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.key, err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeSchema writes the whole schema: the envelope and the type enum, the if/then dispatch
// to each type's $defs entry (so a validator reports only the matching type's errors), and
// the entries, in the registry's order.
func writeSchema(defs []eventDef) ([]byte, error) {
	var types []any
	var dispatch []object
	entries := object{
		{"ts", object{
			{"description", "RFC 3339 UTC time with milliseconds."},
			{"type", "string"},
			{"pattern", `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$`},
		}},
		{"parent_tool_call_id", object{
			{"description", "On events of a subagent: the id of the Agent tool call that runs it."},
			{"type", "string"},
			{"minLength", 1},
		}},
	}
	for _, d := range defs {
		typ := string(d.typ)
		types = append(types, typ)
		dispatch = append(dispatch, object{
			{"if", object{{"properties", object{{"type", object{{"const", typ}}}}}}},
			{"then", object{{"$ref", "#/$defs/" + typ}}},
		})
		entries = append(entries, member{typ, d.schema})
	}
	top := object{
		{"$schema", "https://json-schema.org/draft/2020-12/schema"},
		{"$id", "https://github.com/kimi-run/kimi-run/docs/events.schema.json"},
		{"title", fmt.Sprintf("kimi-run NDJSON event (schema version %d)", event.SchemaVersion)},
		{"description", "One line of `kimi-run --output-format stream-json`; docs/events.md is its prose. " +
			"Generated from the payloads in event/ (" + UpdateCommand + "): edit those, not this file."},
		{"type", "object"},
		{"required", []string{"type", "ts"}},
		{"properties", object{{"type", object{{"enum", types}}}, {"ts", object{{"$ref", "#/$defs/ts"}}}}},
		{"allOf", dispatch},
		{"$defs", entries},
	}
	compact, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, unescapeHTML(compact), "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// unescapeHTML undoes encoding/json's escaping of <, > and & in strings, so descriptions
// stay readable. Other escapes are copied as they are.
func unescapeHTML(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch string(b[i+2 : i+6]) {
			case "003c", "003e", "0026":
				out = append(out, map[string]byte{"003c": '<', "003e": '>', "0026": '&'}[string(b[i+2:i+6])])
				i += 5
				continue
			}
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}

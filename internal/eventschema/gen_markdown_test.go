package eventschema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// typesTable is the Types table of docs/events.md: each event type, when it is written
// (the first paragraph of its payload's doc comment) and its fields, `?` marking those left
// out when empty.
func typesTable(defs []eventDef) string {
	var b strings.Builder
	b.WriteString("| type | when | fields |\n|---|---|---|\n")
	for _, d := range defs {
		var fields []string
		for _, r := range d.rows {
			if strings.ContainsAny(r.path, ".[") {
				continue
			}
			f := "`" + r.path + "`"
			if !r.required {
				f += "?"
			}
			fields = append(fields, f)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", d.typ, cell(strings.TrimSuffix(d.doc[0], ".")), strings.Join(fields, ", "))
	}
	b.WriteString("\n`?` marks a field that is left out when empty.\n")
	return b.String()
}

// fieldTables is a section per event type: its payload's doc comment, then a table of its
// fields with their JSON type and meaning, nested fields by their path.
func fieldTables(defs []eventDef) string {
	var b strings.Builder
	for i, d := range defs {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "### `%s`\n\n", d.typ)
		for _, p := range capitalized(d.doc) {
			b.WriteString(p + "\n\n")
		}
		b.WriteString("| field | type | meaning |\n|---|---|---|\n")
		for _, r := range d.rows {
			typ := jsonType(r.schema)
			if !r.required {
				typ += ", optional"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.path, cell(typ), cell(r.schema.Description))
		}
	}
	return b.String()
}

// jsonType says in words what values s allows.
func jsonType(s *jsonschema.Schema) string {
	switch {
	case len(s.Enum) > 0:
		var vals []string
		for _, v := range s.Enum {
			vals = append(vals, "`"+fmt.Sprint(v)+"`")
		}
		return strings.Join(vals, " | ")
	case len(s.AnyOf) > 0:
		var types []string
		for _, a := range s.AnyOf {
			types = append(types, jsonType(a))
		}
		return strings.Join(types, " or ")
	}
	switch s.Type {
	case "":
		return "any JSON value"
	case "array":
		return "array of " + plural(jsonType(s.Items))
	case "string":
		t := "string"
		if s.MinLength != nil && *s.MinLength > 0 {
			t = "non-empty string"
		}
		if s.Pattern != "" {
			t += " matching `" + s.Pattern + "`"
		}
		return t
	case "integer", "number":
		switch {
		case s.Minimum != nil && s.Maximum != nil:
			return fmt.Sprintf("%s %s to %s", s.Type, num(*s.Minimum), num(*s.Maximum))
		case s.Minimum != nil:
			return fmt.Sprintf("%s ≥ %s", s.Type, num(*s.Minimum))
		}
	}
	return s.Type
}

// plural names several values of a type: "non-empty string" → "non-empty strings".
func plural(t string) string {
	for _, noun := range []string{"string", "integer", "number", "object", "boolean"} {
		if strings.HasSuffix(t, noun) {
			return t + "s"
		}
		if before, after, ok := strings.Cut(t, noun+" "); ok {
			return before + noun + "s " + after
		}
	}
	return t
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

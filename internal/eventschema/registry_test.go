package eventschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/docs"
	"github.com/kimi-run/kimi-run/event"
)

// envelope is what event.Event writes before every payload's fields.
var envelope = []string{"type", "ts", "parent_tool_call_id"}

// registered returns the event registry's types, in its order.
func registered() []string {
	var types []string
	for _, p := range event.Registry() {
		types = append(types, string(p.Type()))
	}
	return types
}

// TestSchemaMatchesTheRegistry: every registered event type has its place in each of the
// schema's three lists (the enum, the allOf dispatch and its $defs entry), and the schema
// names no type the registry lacks.
func TestSchemaMatchesTheRegistry(t *testing.T) {
	var schema struct {
		Properties struct {
			Type struct {
				Enum []string `json:"enum"`
			} `json:"type"`
		} `json:"properties"`
		AllOf []struct {
			If struct {
				Properties struct {
					Type struct {
						Const string `json:"const"`
					} `json:"type"`
				} `json:"properties"`
			} `json:"if"`
			Then struct {
				Ref string `json:"$ref"`
			} `json:"then"`
		} `json:"allOf"`
		Defs map[string]struct {
			Properties struct {
				Type *struct {
					Const string `json:"const"`
				} `json:"type"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(docs.EventsSchema), &schema); err != nil {
		t.Fatal(err)
	}
	want := sorted(registered())
	var dispatched, defined []string
	for _, a := range schema.AllOf {
		typ := a.If.Properties.Type.Const
		dispatched = append(dispatched, typ)
		if a.Then.Ref != "#/$defs/"+typ {
			t.Errorf("allOf entry for %q refers to %q, want #/$defs/%s", typ, a.Then.Ref, typ)
		}
	}
	for name, d := range schema.Defs {
		if d.Properties.Type == nil {
			continue // a shared definition (ts, count, ...), not an event
		}
		defined = append(defined, name)
		if d.Properties.Type.Const != name {
			t.Errorf("$defs/%s: properties.type.const = %q, want %q", name, d.Properties.Type.Const, name)
		}
	}
	for _, l := range []struct {
		where string
		types []string
	}{
		{"properties.type.enum", schema.Properties.Type.Enum},
		{"allOf", dispatched},
		{"$defs", defined},
	} {
		if got := sorted(l.types); !slices.Equal(got, want) {
			t.Errorf("event types in the schema's %s and in event.Registry differ:\n schema:   %v\n registry: %v", l.where, got, want)
		}
	}
}

// TestSchemaFieldsMatchThePayloads: each registered payload's JSON fields are the
// properties of its $defs entry (beside the envelope); a field left out when empty
// (omitempty) is optional there, every other one required.
func TestSchemaFieldsMatchThePayloads(t *testing.T) {
	var schema struct {
		Defs map[string]struct {
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(docs.EventsSchema), &schema); err != nil {
		t.Fatal(err)
	}
	for _, p := range event.Registry() {
		typ := string(p.Type())
		d, ok := schema.Defs[typ]
		if !ok {
			continue // TestSchemaMatchesTheRegistry reports it
		}
		var fields, required []string
		rt := reflect.TypeOf(p)
		for i := range rt.NumField() {
			name, opts, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if name == "-" || !rt.Field(i).IsExported() {
				continue
			}
			fields = append(fields, name)
			if !slices.Contains(strings.Split(opts, ","), "omitempty") {
				required = append(required, name)
			}
		}
		var props []string
		for k := range d.Properties {
			if !slices.Contains(envelope, k) {
				props = append(props, k)
			}
		}
		if got, want := sorted(props), sorted(fields); !slices.Equal(got, want) {
			t.Errorf("%s: the schema's properties and event.%s's fields differ:\n schema: %v\n Go:     %v", typ, rt.Name(), got, want)
		}
		var req []string
		for _, k := range d.Required {
			if !slices.Contains(envelope, k) {
				req = append(req, k)
			}
		}
		if got, want := sorted(req), sorted(required); !slices.Equal(got, want) {
			t.Errorf("%s: the schema requires %v, but event.%s always writes %v", typ, got, rt.Name(), want)
		}
	}
}

// TestDocsListTheRegisteredTypes: the Types table of docs/events.md names every registered
// event type, in the registry's order, and no other.
func TestDocsListTheRegisteredTypes(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "..", "docs", "events.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := documentedTypes(t, string(md)), registered(); !slices.Equal(got, want) {
		t.Errorf("event types in the Types table of docs/events.md and in event.Registry differ:\n docs:     %v\n registry: %v", got, want)
	}
}

// documentedTypes reads the first column of the "## Types" table of docs/events.md, in
// order.
func documentedTypes(t *testing.T, md string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(md, "\n## Types\n")
	if !ok {
		t.Fatal("docs/events.md has no '## Types' section")
	}
	if i := strings.Index(rest, "\n#"); i >= 0 {
		rest = rest[:i]
	}
	name := regexp.MustCompile("`([a-z_]+)`")
	var types []string
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.Split(line, "|")[1]
		for _, m := range name.FindAllStringSubmatch(first, -1) {
			types = append(types, m[1])
		}
	}
	if len(types) == 0 {
		t.Fatal("no event types found in the Types table of docs/events.md")
	}
	return types
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

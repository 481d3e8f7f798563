package answerschema

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const personSchema = `{
  "type": "object",
  "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
  "required": ["name", "age"],
  "additionalProperties": false
}`

func TestSchemaCheck(t *testing.T) {
	t.Parallel()
	s, err := Load(context.Background(), personSchema)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, answer string
		want         string // compact JSON; empty: invalid
		problem      string // part of a reported problem
	}{
		{name: "plain", answer: `{"name": "Ada", "age": 36}`, want: `{"name":"Ada","age":36}`},
		{name: "surrounding space", answer: "\n  {\"name\":\"Ada\",\"age\":36}\n\n", want: `{"name":"Ada","age":36}`},
		{name: "json fence", answer: "```json\n{\"name\": \"Ada\",\n \"age\": 36}\n```", want: `{"name":"Ada","age":36}`},
		{name: "bare fence", answer: "```\n{\"name\":\"Ada\",\"age\":36}\n```", want: `{"name":"Ada","age":36}`},
		{name: "one fence among prose", answer: "Here it is:\n```json\n{\"name\":\"Ada\",\"age\":36}\n```\nDone.", want: `{"name":"Ada","age":36}`},
		{name: "wrong type", answer: `{"name":"Ada","age":"36"}`, problem: "/age"},
		{name: "missing field", answer: `{"name":"Ada"}`, problem: "age"},
		{name: "extra field", answer: `{"name":"Ada","age":1,"x":2}`, problem: "x"},
		{name: "prose", answer: "Ada is 36.", problem: "not JSON"},
		{name: "two values", answer: `{"name":"Ada","age":1} {}`, problem: "not JSON"},
		{name: "two fences", answer: "```json\n{}\n```\n```json\n{}\n```", problem: "not JSON"},
		{name: "empty", answer: "  ", problem: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := s.Check(tt.answer)
			if tt.want != "" {
				if string(got) != tt.want || problems != nil {
					t.Errorf("check = %s, %q; want %s", got, problems, tt.want)
				}
				return
			}
			if got != nil || !strings.Contains(strings.Join(problems, "\n"), tt.problem) {
				t.Errorf("check = %s, %q; want a problem mentioning %q", got, problems, tt.problem)
			}
			for _, p := range problems {
				if strings.Contains(p, "\n") || strings.Contains(p, "validation failed with") {
					t.Errorf("problem %q is not one clean line", p)
				}
			}
		})
	}
}

func TestLoadSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	draft7 := write("d7.json", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":{"type":"number"}}`)
	withRef := write("ref.json", `{"type":"object","properties":{"p":{"$ref":"person.json"}}}`)
	write("person.json", personSchema)
	for _, tt := range []struct {
		spec, valid, invalid string
	}{
		{spec: personSchema, valid: `{"name":"x","age":1}`, invalid: `{}`},
		{spec: draft7, valid: `[1,2.5]`, invalid: `["a"]`},
		{spec: withRef, valid: `{"p":{"name":"x","age":1}}`, invalid: `{"p":{"name":"x"}}`},
		{spec: "true", valid: `"anything"`},
	} {
		s, err := Load(context.Background(), tt.spec)
		if err != nil {
			t.Fatalf("Load(%.30q): %v", tt.spec, err)
		}
		if _, p := s.Check(tt.valid); p != nil {
			t.Errorf("%.30q rejects %s: %q", tt.spec, tt.valid, p)
		}
		if tt.invalid != "" {
			if _, p := s.Check(tt.invalid); p == nil {
				t.Errorf("%.30q accepts %s", tt.spec, tt.invalid)
			}
		}
	}
	for _, bad := range []string{
		`{"type": "object",`,                     // not JSON
		`{"type": 12}`,                           // not a schema
		`{"$ref": "https://example.com/s.json"}`, // no network
		filepath.Join(dir, "missing.json"),
	} {
		_, err := Load(context.Background(), bad)
		if err == nil { // run makes it a usage error: TestJSONSchemaUsageErrors
			t.Errorf("Load(%q) = nil error, want one", bad)
		}
	}
}

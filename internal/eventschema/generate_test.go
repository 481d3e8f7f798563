package eventschema

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/hooks"
)

var update = flag.Bool("update", false, "rewrite docs/events.schema.json and the generated parts of docs/events.md from event/")

var (
	eventDir   = filepath.Join("..", "..", "event")
	schemaFile = filepath.Join("..", "..", "docs", "events.schema.json")
	docsFile   = filepath.Join("..", "..", "docs", "events.md")
)

// TestGeneratedFilesAreCurrent: docs/events.schema.json and the marked parts of
// docs/events.md are what Generate makes of event/ now. After a change to a payload, run
// UpdateCommand and review the diff.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	g, err := Generate(eventDir)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(docsFile)
	if err != nil {
		t.Fatal(err)
	}
	wantMD, err := Splice(string(md), g.Docs)
	if err != nil {
		t.Fatalf("docs/events.md: %v", err)
	}
	if *update {
		if err := os.WriteFile(schemaFile, g.Schema, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(docsFile, []byte(wantMD), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	schema, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(schema, g.Schema) {
		t.Errorf("docs/events.schema.json is not what event/ generates; run %s and review the diff:\n%s", UpdateCommand, firstDiff(string(schema), string(g.Schema)))
	}
	if string(md) != wantMD {
		t.Errorf("the generated parts of docs/events.md are not what event/ generates; run %s and review the diff:\n%s", UpdateCommand, firstDiff(string(md), wantMD))
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n  file:      " + gl + "\n  generated: " + wl
		}
	}
	return "(no line differs)"
}

type tagged struct {
	N int `json:"n" minimum:"1"`
}

func (tagged) Type() event.Type { return "tagged" }

type typoTag struct {
	N int `json:"n" minimun:"1"`
}

func (typoTag) Type() event.Type { return "typo" }

type misplacedTag struct {
	S string `json:"s" minimum:"1"`
}

func (misplacedTag) Type() event.Type { return "misplaced" }

type badEnum struct {
	N int `json:"n" enum:"1,two"`
}

func (badEnum) Type() event.Type { return "bad_enum" }

type unionOnString struct {
	S string `json:"s" types:"object,string"`
}

func (unionOnString) Type() event.Type { return "union" }

// TestDefineRefusesWhatItCannotWrite: a tag the generator does not know (a typo), a keyword
// on a field of the wrong JSON type, a value that does not parse, and a payload or field
// without its doc comment are errors that name the field, never a schema that silently
// lacks the rule or the description.
func TestDefineRefusesWhatItCannotWrite(t *testing.T) {
	docs := func(typ string, fields ...string) comments {
		c := comments{types: map[string][]string{typ: {typ + " is written in tests."}}, fields: map[string][]string{}}
		for _, f := range fields {
			c.fields[typ+"."+f] = []string{"A field."}
		}
		return c
	}
	tests := []struct {
		name string
		p    event.Payload
		c    comments
		want string // "" for no error
	}{
		{"documented", tagged{}, docs("tagged", "N"), ""},
		{"typo in a tag", typoTag{}, docs("typoTag", "N"), "minimun"},
		{"minimum on a string", misplacedTag{}, docs("misplacedTag", "S"), `minimum on a "string" field`},
		{"enum value that is not an integer", badEnum{}, docs("badEnum", "N"), `"two" is not an integer`},
		{"union on a Go string", unionOnString{}, docs("unionOnString", "S"), "types on a field"},
		{"field without a doc comment", tagged{}, docs("tagged"), "tagged.N has no doc comment"},
		{"payload without a doc comment", tagged{}, comments{fields: docs("tagged", "N").fields}, `must start with "tagged "`},
		{"doc comment not naming the payload", tagged{}, comments{types: map[string][]string{"tagged": {"Written in tests."}}, fields: docs("tagged", "N").fields}, `must start with "tagged "`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := define(tt.p, tt.c)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want == "":
				if got := d.schema.Properties["n"]; got == nil || got.Minimum == nil || *got.Minimum != 1 || got.Description != "A field." {
					t.Errorf("property n = %+v, want minimum 1 and the field's doc comment", got)
				}
			case err == nil:
				t.Fatalf("accepted; want an error mentioning %q", tt.want)
			case !strings.Contains(err.Error(), tt.want):
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
		})
	}
}

// TestHookEventsAreTheHooksPackage's: the hook event's enum lists exactly the hook events
// config.toml accepts (hooks.Events), so a new hook event cannot be refused by the schema.
func TestHookEventsAreTheHooksPackages(t *testing.T) {
	sch, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range sch.Schema().Defs[string(event.TypeHook)].Properties["event"].Enum {
		got = append(got, v.(string))
	}
	if !slices.Equal(sorted(got), sorted(hooks.Events)) {
		t.Errorf("the hook event's enum in the schema and hooks.Events differ:\n schema: %v\n hooks:  %v", got, hooks.Events)
	}
}

func TestSplice(t *testing.T) {
	parts := map[string]string{"a": "A\n", "b": "B\n"}
	md := "x\n<!-- BEGIN generated a: cmd -->\nold\n<!-- END generated a -->\ny\n<!-- BEGIN generated b -->\n<!-- END generated b -->\n"
	got, err := Splice(md, parts)
	if want := "x\n<!-- BEGIN generated a: cmd -->\nA\n<!-- END generated a -->\ny\n<!-- BEGIN generated b -->\nB\n<!-- END generated b -->\n"; err != nil || got != want {
		t.Errorf("Splice = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []struct{ md, want string }{
		{"<!-- BEGIN generated a -->\n<!-- END generated a -->\n", `no markers for the generated part "b"`},
		{"<!-- BEGIN generated a -->\nno end\n<!-- BEGIN generated b -->\n<!-- END generated b -->\n", `no "<!-- END generated a -->"`},
		{"<!-- BEGIN generated c -->\n<!-- END generated c -->\n", `"c", which is not a generated part`},
		{md + "<!-- BEGIN generated a -->\n<!-- END generated a -->\n", `two pairs of markers for "a"`},
	} {
		if _, err := Splice(bad.md, parts); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Splice(%q) = %v, want an error mentioning %q", bad.md, err, bad.want)
		}
	}
}

package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestBuiltinSchemasGolden pins the argument schemas the model is offered, one tool
// after another, indented. A change to a tool's arguments shows here for review (go test
// ./tools -run TestBuiltinSchemasGolden -update rewrites the file). The shell, which
// depends on the machine, shows as {shell_run}.
func TestBuiltinSchemasGolden(t *testing.T) {
	var b bytes.Buffer
	for _, tool := range allBuiltins() {
		b.WriteString("# " + tool.Name() + "\n")
		if err := json.Indent(&b, tool.Schema(), "", "  "); err != nil {
			t.Fatalf("%s: %v", tool.Name(), err)
		}
		b.WriteString("\n")
	}
	got := strings.ReplaceAll(b.String(), "with "+theShell().run()+`"`, `with {shell_run}"`)
	golden := filepath.Join("testdata", "schemas.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("the built-in tools' schemas differ from %s (run with -update after review):\n%s", golden, got)
	}
}

// TestArgsSchemaFromTags checks the tags New reads: description and enum on any field,
// nested structs and slices of them, required for fields without omitempty, and plain
// types (no null) for pointers and slices.
func TestArgsSchemaFromTags(t *testing.T) {
	type item struct {
		Name string `json:"name" description:"the item's name"`
		Kind string `json:"kind,omitempty" enum:"a,b" description:"a or b"`
	}
	type args struct {
		Items []item `json:"items" description:"the list"`
		Limit *int   `json:"limit,omitempty" description:"at most this many"`
		Flag  bool   `json:"-f,omitempty"`
		Skip  string `json:"-"`
	}
	s, err := argsSchema[args]()
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string","description":"the item's name"},"kind":{"type":"string","description":"a or b","enum":["a","b"]}},"required":["name"],"additionalProperties":false},"description":"the list"},"limit":{"type":"integer","description":"at most this many"},"-f":{"type":"boolean"}},"required":["items"],"additionalProperties":false}`
	if string(got) != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
}

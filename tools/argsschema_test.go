package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestBuiltinSchemasGolden pins the argument schemas the model is offered, one tool
// after another, indented, as inferred from the tools' argument types. The file is also
// the table the binary reads them from (schemas.go), so a stale one fails here: a change to
// a tool's arguments, a new tool or a new limit needs `go generate ./tools` (or go test
// ./tools -run TestBuiltinSchemasGolden -update), and shows for review. The shell, which
// depends on the machine, shows as {shell_run}.
func TestBuiltinSchemasGolden(t *testing.T) {
	got, err := writeSchemas(allBuiltins())
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "schemas.txt", []byte(got), *update, "go generate ./tools")
}

// TestSchemaTable checks that every built-in tool takes its schema from the table, that
// the bytes are those inference gives (with the shell filled in), as are its required
// fields, and that a tool the table does not know, or knows under another argument type,
// is inferred.
func TestSchemaTable(t *testing.T) {
	for _, tool := range allBuiltins() {
		f := tool.(derivedTool)
		table, ok := tableSchema(tool.Name(), f.argsType())
		if !ok {
			t.Errorf("%s: not in schemas.txt", tool.Name())
			continue
		}
		raw, required, err := f.deriveSchema()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.ReplaceAll(string(raw), "{shell_run}", theShell().run())
		if string(table) != want || string(tool.Schema()) != want {
			t.Errorf("%s: table gives\n%s\ntool has\n%s\nwant\n%s", tool.Name(), table, tool.Schema(), want)
		}
		if got := requiredOf(table); !slices.Equal(got, required) {
			t.Errorf("%s: required %q from the table, %q inferred", tool.Name(), got, required)
		}
	}
	type otherArgs struct {
		Path string `json:"path" description:"a path, {glob_limit} at most"`
	}
	for _, name := range []string{"WriteFile", "NotABuiltin"} {
		tool := New(name, "test", Facts{}, func(context.Context, otherArgs) (Result, error) { return Text("ran"), nil })
		if want := fmt.Sprintf(`{"type":"object","properties":{"path":{"type":"string","description":"a path, %d at most"}},"required":["path"],"additionalProperties":false}`, globLimit); string(tool.Schema()) != want {
			t.Errorf("%s with its own arguments: schema %s, want %s", name, tool.Schema(), want)
		}
		res, err := tool.Run(context.Background(), json.RawMessage(`{"path":"x"}`))
		if err != nil || res.IsError {
			t.Errorf("%s: a call with its own required field: %+v %v", name, res, err)
		}
		if res, _ := tool.Run(context.Background(), json.RawMessage(`{}`)); !res.IsError || !strings.Contains(res.Output, `missing required field "path"`) {
			t.Errorf("%s: a call without its required field: %+v", name, res)
		}
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

// writeSchemas renders ts's schemas as schemas.txt holds them, each made without the
// table (inferred from its arguments' type, or hand-written).
func writeSchemas(ts []Tool) (string, error) {
	var b bytes.Buffer
	for _, t := range ts {
		f, ok := t.(derivedTool)
		if !ok {
			return "", fmt.Errorf("%s is not made by New", t.Name())
		}
		raw, _, err := f.deriveSchema()
		if err != nil {
			return "", err
		}
		b.WriteString("# " + schemaKey(t.Name(), f.argsType()) + "\n")
		b.Write(raw)
		b.WriteString("\n")
	}
	return b.String(), nil
}

// derivedTool is a tool made by New: its schema can be inferred from its arguments'
// type, limits filled and the shell left as {shell_run}.
type derivedTool interface {
	argsType() reflect.Type
	deriveSchema() (raw json.RawMessage, required []string, err error)
}

func (t *funcTool[In]) argsType() reflect.Type { return reflect.TypeFor[In]() }

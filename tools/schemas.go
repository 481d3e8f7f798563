package tools

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// The built-in tools' argument schemas are known when the binary is built, so they are
// written then rather than inferred by reflection and marshalled again on every start
// (issue 31): schemas.txt holds each one as New would make it, limits filled, {shell_run}
// left for the machine's shell. TestBuiltinSchemasGolden writes it from the tools' types
// and fails when it is stale; a new tool in builtinTable is picked up with no edit here.
//
//go:generate go test -run TestBuiltinSchemasGolden -update
//go:embed schemas.txt
var schemasText string

// schemaKey names a schema in schemas.txt: the tool's name and its arguments' Go type, so
// that another tool of the same name (a test's, a plugin's) never gets a built-in's schema.
func schemaKey(name string, in reflect.Type) string { return name + " " + in.String() }

// schemaIndex maps each key of schemas.txt to its schema, compact as json.Marshal writes
// it. A run builds the built-in tools more than once (the agents' tool sets, its own set),
// so they are compacted once, together.
var schemaIndex = sync.OnceValue(func() map[string]string { return parseSchemas(schemasText) })

// parseSchemas reads schemas.txt: "# KEY" lines, each followed by its schema.
func parseSchemas(text string) map[string]string {
	m := map[string]string{}
	var key string
	var schema, compact bytes.Buffer
	flush := func() {
		if key != "" {
			compact.Reset()
			if err := json.Compact(&compact, schema.Bytes()); err != nil {
				panic(fmt.Sprintf("tools: schemas.txt, %s: %v", key, err))
			}
			m[key] = compact.String()
		}
		schema.Reset()
	}
	for line := range strings.Lines(text) {
		if k, ok := strings.CutPrefix(line, "# "); ok { // a JSON line never starts so
			flush()
			key = strings.TrimSuffix(k, "\n")
			continue
		}
		schema.WriteString(line)
	}
	flush()
	return m
}

// tableSchema returns the schema schemas.txt holds for the tool name with arguments of
// type in, compact as json.Marshal writes it and with the shell filled in, or false when
// the table has none.
func tableSchema(name string, in reflect.Type) (json.RawMessage, bool) {
	text, ok := schemaIndex()[schemaKey(name, in)]
	if !ok {
		return nil, false
	}
	if strings.Contains(text, "{shell_run}") {
		text = strings.ReplaceAll(text, "{shell_run}", theShell().run())
	}
	return json.RawMessage(text), true
}

// derivedTool is a tool made by New: its schema can be inferred from its arguments'
// type, limits filled and the shell left as {shell_run}.
type derivedTool interface {
	argsType() reflect.Type
	deriveSchema() (raw json.RawMessage, required []string, err error)
}

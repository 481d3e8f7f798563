package tools

import (
	_ "embed"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// The built-in tools' argument schemas are known when the binary is built, so they are
// written then rather than inferred by reflection and marshalled again on every start:
// schemas.txt holds each one as New would make it, compact as json.Marshal writes it,
// limits filled, {shell_run} left for the machine's shell. TestBuiltinSchemasGolden writes
// it from the tools' types and fails when it is stale; a new tool in builtinTable is picked
// up with no edit here.
//
//go:generate go test -run TestBuiltinSchemasGolden -update
//go:embed schemas.txt
var schemasText string

// schemaKey names a schema in schemas.txt: the tool's name and its arguments' Go type, so
// that another tool of the same name (a test's, a plugin's) never gets a built-in's schema.
func schemaKey(name string, in reflect.Type) string { return name + " " + in.String() }

// schemaIndex maps each key of schemas.txt to its schema.
var schemaIndex = sync.OnceValue(func() map[string]string { return parseSchemas(schemasText) })

// parseSchemas reads schemas.txt: each "# KEY" line followed by its schema, on one line.
func parseSchemas(text string) map[string]string {
	m := map[string]string{}
	var key string
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		if k, ok := strings.CutPrefix(line, "# "); ok { // a JSON line never starts so
			key = k
		} else if key != "" {
			m[key], key = line, ""
		}
	}
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

// Package eventschema validates NDJSON event lines against docs/events.schema.json. Tests
// that read stream-json use it on every line, so the documentation, the schema file and
// the code cannot drift apart unnoticed. The binary does not import it: compiling the
// schema is left to the tests.
package eventschema

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kimi-run/kimi-run/docs"
)

// schemaURL names the schema resource inside the compiler; it is never fetched.
const schemaURL = "https://github.com/kimi-run/kimi-run/docs/events.schema.json"

var (
	once     sync.Once
	compiled *jsonschema.Schema
	errSetup error
)

// Schema returns the compiled event schema (compiled once).
func Schema() (*jsonschema.Schema, error) {
	once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(docs.EventsSchema))
		if err != nil {
			errSetup = fmt.Errorf("parse docs/events.schema.json: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(schemaURL, doc); err != nil {
			errSetup = fmt.Errorf("load docs/events.schema.json: %w", err)
			return
		}
		compiled, errSetup = c.Compile(schemaURL)
		if errSetup != nil {
			errSetup = fmt.Errorf("compile docs/events.schema.json: %w", errSetup)
		}
	})
	return compiled, errSetup
}

// Validate checks one NDJSON line (without its newline) against the schema. The error
// names the line's event type and every rule it broke.
func Validate(line []byte) error {
	sch, err := Schema()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	err = sch.Validate(inst)
	record(line, err == nil)
	if err != nil {
		typ := "?"
		if m, ok := inst.(map[string]any); ok {
			typ = fmt.Sprint(m["type"])
		}
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("%s event does not match docs/events.schema.json: %s", typ, detail(ve))
		}
		return fmt.Errorf("%s event: %w", typ, err)
	}
	return nil
}

// ValidateStream checks every line of an NDJSON output.
func ValidateStream(out []byte) error {
	for i, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		if len(line) == 0 && len(out) == 0 {
			break
		}
		if err := Validate(line); err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
	}
	return nil
}

// detail flattens the library's indented error tree to one line.
func detail(ve *jsonschema.ValidationError) string {
	var parts []string
	for _, l := range strings.Split(ve.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			// "false schema" is how the library says a field is not in the schema.
			parts = append(parts, strings.ReplaceAll(l, "false schema", "field not in the schema"))
		}
	}
	return strings.Join(parts, " | ")
}

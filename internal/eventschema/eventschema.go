// Package eventschema validates NDJSON event lines against docs/events.schema.json, which
// its tests generate with the tables of docs/events.md from the event payloads
// (go test ./internal/eventschema -run TestGenerated -update). Tests that read stream-json use it on every line, so the
// documentation, the schema file and the code cannot drift apart unnoticed. The binary does
// not import it: compiling the schema is left to the tests.
package eventschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kimi-run/kimi-run/docs"
)

var (
	once     sync.Once
	compiled *jsonschema.Resolved
	errSetup error
)

// Schema returns the resolved event schema (resolved once).
func Schema() (*jsonschema.Resolved, error) {
	once.Do(func() {
		var sch jsonschema.Schema
		if err := json.Unmarshal([]byte(docs.EventsSchema), &sch); err != nil {
			errSetup = fmt.Errorf("parse docs/events.schema.json: %w", err)
			return
		}
		compiled, errSetup = sch.Resolve(nil)
		if errSetup != nil {
			errSetup = fmt.Errorf("resolve docs/events.schema.json: %w", errSetup)
		}
	})
	return compiled, errSetup
}

// Validate checks one NDJSON line (without its newline) against the schema. The error
// names the line's event type and the rule it broke.
func Validate(line []byte) error {
	sch, err := Schema()
	if err != nil {
		return err
	}
	var inst any
	if err := json.Unmarshal(line, &inst); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	err = sch.Validate(inst)
	record(line, err == nil)
	if err != nil {
		typ := "?"
		if m, ok := inst.(map[string]any); ok {
			typ = fmt.Sprint(m["type"])
		}
		return fmt.Errorf("%s event does not match docs/events.schema.json: %w", typ, err)
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

// Package docs ships documents with the binary: the JSON Schema of the NDJSON events,
// printed by `kimi-run --print-schema` and used by the tests to validate every stream.
package docs

import _ "embed"

// EventsSchema is docs/events.schema.json: the JSON Schema (2020-12) of one line of
// --output-format stream-json, schema version 1, generated from the payloads of event/
// (internal/eventschema).
//
//go:embed events.schema.json
var EventsSchema string

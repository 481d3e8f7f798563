// Package event holds the NDJSON event types of kimi-run: the public contract of
// --output-format stream-json (docs/events.md). It is a leaf package: the agent emits
// through it, and output/ and ralph/ read it without pulling in the model client.
package event

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"time"
)

// SchemaVersion is the version of the NDJSON event schema (docs/events.md).
const SchemaVersion = 1

// Type names an event in the NDJSON stream. The types are listed in payload.go's registry
// (Registry); their payloads stand in payload.go (the run, its turns and iterations),
// step.go (a model call), toolcall.go (a tool call), task.go (background tasks) and
// result.go (the run's end).
type Type string

// Payload is the data of one event type. Each payload struct of this package knows its
// type, so an event cannot pair a type with another type's data.
type Payload interface {
	// Type is the event type this payload is the data of.
	Type() Type
}

// Event is the one thing that flows from the agent (and the flow runner) to an output sink.
// Data is the payload, by value or by pointer; its fields are written flat beside "type"
// and "ts", and its Type method gives the event's type.
type Event struct {
	Time time.Time
	// Parent is the id of the Agent tool call whose subagent produced this event; empty for
	// the main agent.
	Parent string
	Data   Payload
}

// Type is the type of the event's payload; empty when it has none.
func (e Event) Type() Type {
	if e.Data == nil {
		return ""
	}
	return e.Data.Type()
}

// Payload returns the event's data by value, whether it was given by value or by pointer,
// so that a type switch over payloads needs one case per type.
func (e Event) Payload() Payload {
	if v := reflect.ValueOf(e.Data); v.Kind() == reflect.Pointer && !v.IsNil() {
		if p, ok := v.Elem().Interface().(Payload); ok {
			return p
		}
	}
	return e.Data
}

// Sink receives events. Emit must be safe for concurrent use: tool calls run in parallel.
type Sink interface {
	Emit(Event)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(Event)

// Emit calls f(e).
func (f SinkFunc) Emit(e Event) { f(e) }

// MarshalJSON writes {"type":…,"ts":…,"parent_tool_call_id":…, <payload fields>}.
func (e Event) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	t, _ := json.Marshal(string(e.Type()))
	b.Write(t)
	b.WriteString(`,"ts":"`)
	b.WriteString(e.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	b.WriteByte('"')
	if e.Parent != "" {
		b.WriteString(`,"parent_tool_call_id":`)
		p, _ := json.Marshal(e.Parent)
		b.Write(p)
	}
	if e.Data != nil {
		d, err := marshalNoEscape(e.Data)
		if err != nil {
			return nil, fmt.Errorf("marshal %s event: %w", e.Type(), err)
		}
		if len(d) < 2 || d[0] != '{' {
			return nil, fmt.Errorf("marshal %s event: payload is not an object", e.Type())
		}
		if len(d) > 2 {
			b.WriteByte(',')
			b.Write(d[1 : len(d)-1])
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshalNoEscape is json.Marshal without HTML escaping: final texts quote <choice> tags
// and code, which should stay readable in the stream.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

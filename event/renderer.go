package event

// Renderer names a consumer of events that shows some types and not others, so that the
// registry can say, beside each type, which renderers leave it out. The NDJSON stream is
// not one: it writes every event.
type Renderer uint8

// The renderers that pick events by type.
const (
	// Progress is text mode's progress lines on stderr (output/progress.go, output/text.go);
	// a type it leaves out shows as "event TYPE" with --log-level debug.
	Progress Renderer = 1 << iota
	// KimiLines is Kimi CLI's message lines of --print stream-json (output/kimi.go).
	KimiLines
	// Telemetry is the OpenTelemetry spans and measurements (telemetry/spans.go).
	Telemetry
)

// registered is one line of the registry: a zero payload of the type, and the renderers
// that leave it out.
type registered struct {
	payload Payload
	skip    Renderer
}

// SkippedBy returns the event types r leaves out on purpose, in the registry's order. The
// renderer has a case for every other type; its test (testkit.EveryTypeDecided) holds the
// two to the registry.
func SkippedBy(r Renderer) []Type {
	var out []Type
	for _, e := range registry {
		if e.skip&r != 0 {
			out = append(out, e.payload.Type())
		}
	}
	return out
}

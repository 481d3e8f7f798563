package telemetry

import (
	"testing"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestTelemetryDecidesEveryEventType: Emit handles each registered event type, or its line
// in event/payload.go's registry says telemetry leaves it out, so a new event type cannot
// slip past the spans unnoticed.
func TestTelemetryDecidesEveryEventType(t *testing.T) {
	testkit.EveryTypeDecided(t, "telemetry (Telemetry.Emit)", event.Telemetry, testkit.SwitchedTypes(t, "spans.go", "Emit"))
}

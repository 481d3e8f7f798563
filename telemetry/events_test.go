package telemetry

import (
	"testing"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestTelemetryDecidesEveryEventType: Emit handles each registered event type or lists it
// in ignoredEvents, so a new event type cannot slip past the spans unnoticed.
func TestTelemetryDecidesEveryEventType(t *testing.T) {
	testkit.EveryTypeDecided(t, "telemetry (Telemetry.Emit)", "ignoredEvents in telemetry/spans.go",
		testkit.SwitchedTypes(t, "spans.go", "Emit"), ignoredEvents)
}

package output

import (
	"maps"
	"testing"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// The renderers that pick events by type decide on every registered type: they handle it,
// or its line in event/payload.go's registry says they leave it out, so a new event type
// cannot slip past them unnoticed.

func TestTextDecidesEveryEventType(t *testing.T) {
	handled := testkit.SwitchedTypes(t, "text.go", "Emit")
	maps.Copy(handled, testkit.SwitchedTypes(t, "progress.go", "progress"))
	testkit.EveryTypeDecided(t, "the text progress (Text.Emit, Text.progress)", event.Progress, handled)
}

func TestKimiDecidesEveryEventType(t *testing.T) {
	testkit.EveryTypeDecided(t, "Kimi's message lines (Kimi.Emit)", event.KimiLines, testkit.SwitchedTypes(t, "kimi.go", "Emit"))
}

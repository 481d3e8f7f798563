package run

import (
	"context"
	"fmt"
	"io"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scrub"
	"github.com/kimi-run/kimi-run/model/protocols"
	"github.com/kimi-run/kimi-run/output"
	"github.com/kimi-run/kimi-run/telemetry"
)

// startTelemetry starts OpenTelemetry export when the environment sets an OTLP endpoint
// (docs/telemetry.md); otherwise it returns nil at the cost of a few getenv calls. A
// setting it cannot follow is a warning: telemetry never changes a run's outcome.
func startTelemetry(s *config.Settings, version string, secrets *scrub.Set) (*telemetry.Telemetry, []string) {
	if !telemetry.Enabled(s.Env.Getenv) {
		return nil, nil
	}
	t, warnings, err := telemetry.New(context.Background(), telemetry.Options{
		Getenv:  s.Env.Getenv,
		Version: version,
		Content: s.Flags.OTelLogContent,
		Scrub:   secrets.String,
		// gen_ai.provider.name, by the protocols' table.
		ProviderName: protocols.ProviderName,
	})
	if err != nil {
		return nil, append(warnings, fmt.Sprintf("%v; the run goes on without telemetry", err))
	}
	return t, warnings
}

// telemetrySink shows every event to the telemetry on its way to the output sink.
type telemetrySink struct {
	output.Sink
	t *telemetry.Telemetry
}

func (s telemetrySink) Emit(e event.Event) {
	s.t.Emit(e)
	s.Sink.Emit(e)
}

// stopTelemetry flushes what is left, within the telemetry's bound, and says on stderr
// when the collector did not get it all. The exit code stays the run's.
func stopTelemetry(t *telemetry.Telemetry, stderr io.Writer, secrets *scrub.Set) {
	if err := t.Shutdown(context.Background()); err != nil {
		fmt.Fprintf(stderr, "kimi-run: telemetry: not everything reached the collector: %s\n", secrets.String(err.Error()))
	}
}

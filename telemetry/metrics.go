package telemetry

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// instruments are the run's metrics. Without a meter provider they are no-ops.
type instruments struct {
	tokens    metric.Int64Counter     // kimi_run.tokens {gen_ai.token.type: input|output|cached}
	cost      metric.Float64Counter   // kimi_run.cost, US dollars
	modelCall metric.Float64Histogram // kimi_run.model_call.duration, seconds
	toolCall  metric.Float64Histogram // kimi_run.tool_call.duration, seconds
	runs      metric.Int64Counter     // kimi_run.runs {exit_code, terminal_reason}
	runTime   metric.Float64Histogram // kimi_run.run.duration, seconds
}

func newInstruments(m metric.Meter) instruments {
	if m == nil {
		m = noop.NewMeterProvider().Meter(scope)
	}
	// Errors only come from invalid names or units, which are fixed here.
	var i instruments
	i.tokens, _ = m.Int64Counter("kimi_run.tokens", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens of the model calls, by gen_ai.token.type (input, output, cached; cached tokens are part of input)."))
	i.cost, _ = m.Float64Counter("kimi_run.cost", metric.WithUnit("USD"),
		metric.WithDescription("Cost of the runs, from the model's prices; absent when they are unknown."))
	i.modelCall, _ = m.Float64Histogram("kimi_run.model_call.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of one model call, retries included."))
	i.toolCall, _ = m.Float64Histogram("kimi_run.tool_call.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of one tool call."))
	i.runs, _ = m.Int64Counter("kimi_run.runs", metric.WithUnit("{run}"),
		metric.WithDescription("Runs, by exit_code and terminal_reason."))
	i.runTime, _ = m.Float64Histogram("kimi_run.run.duration", metric.WithUnit("s"),
		metric.WithDescription("Wall-clock duration of a run."))
	return i
}

// Package telemetry exports a run's traces and metrics with OpenTelemetry over OTLP
// (HTTP/protobuf or gRPC), configured by the standard OTEL_* variables. It is off unless an
// OTLP endpoint is set, and then costs nothing: New is never called.
//
// It reads the run as the output sinks do, from its events (Observe): a span for the run,
// each turn (a prompt, a Ralph iteration, a flow node), each model call and each tool call,
// subagents nested under the Agent call that ran them; counters and histograms of tokens,
// cost, durations and exit codes. The agent knows nothing of it.
//
// Spans carry names, counts, sizes and timings, never the prompt, tool arguments or outputs
// unless Options.Content says so, and what they carry passes Options.Scrub.
package telemetry

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// DefaultFlushTimeout bounds the export at exit when OTEL_EXPORTER_OTLP_TIMEOUT is unset:
// an unreachable collector delays a run by at most this much.
const DefaultFlushTimeout = 2 * time.Second

// Options configures New.
type Options struct {
	// Getenv reads the OTEL_EXPORTER_OTLP_* settings (endpoints, protocols, headers,
	// timeout, compression, certificates), OTEL_SDK_DISABLED, OTEL_*_EXPORTER and
	// TRACEPARENT. The SDK's resource reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
	// from the process's environment itself.
	Getenv func(string) string
	// Version is kimi-run's version, the default service.version.
	Version string
	// Content puts the prompt, tool arguments, tool outputs and the final answer on spans.
	Content bool
	// Scrub cleans every text put on a span or a metric (error messages, content).
	Scrub func(string) string
	// ProviderName is gen_ai.provider.name for a provider type (model/protocols names
	// them); nil puts the type itself.
	ProviderName func(typ string) string
}

// Enabled reports whether the environment asks for any telemetry: an OTLP endpoint for
// traces or metrics, and OTEL_SDK_DISABLED not true. It is all a run without telemetry
// pays.
func Enabled(getenv func(string) string) bool {
	traces, metrics := signals(getenv)
	return traces || metrics
}

// signals says which signals are to be exported.
func signals(getenv func(string) string) (traces, metrics bool) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false, false
	}
	any := getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	traces = (any || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "") && !none(getenv("OTEL_TRACES_EXPORTER"))
	metrics = (any || getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != "") && !none(getenv("OTEL_METRICS_EXPORTER"))
	return traces, metrics
}

func none(exporter string) bool { return strings.TrimSpace(exporter) == "none" }

// Telemetry is one run's exporters and the state that turns its events into spans. Its
// methods are safe for concurrent use.
type Telemetry struct {
	opts   Options
	tp     *sdktrace.TracerProvider // nil when traces are off
	mp     *sdkmetric.MeterProvider // nil when metrics are off
	tracer trace.Tracer
	inst   instruments
	flush  time.Duration

	mu    sync.Mutex
	spans spanState

	lost losses // what did not reach the collector, reported once at exit
}

// New starts the exporters the environment asks for and opens the run's span (a child of
// TRACEPARENT when it is set). Nothing is sent before the first batch is due; a collector
// that is down costs nothing until Shutdown. Warnings are settings it could not follow.
func New(ctx context.Context, opts Options) (*Telemetry, []string, error) {
	if opts.Scrub == nil {
		opts.Scrub = func(s string) string { return s }
	}
	t := &Telemetry{opts: opts, flush: flushTimeout(opts.Getenv)}
	// Export errors are reported once at exit (Shutdown's error), not logged mid-run on
	// stderr by the SDK's default handler.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(t.recordErr))
	otel.SetLogger(logr.Discard())

	res, err := resource.New(ctx,
		resource.WithAttributes(
			attribute.String("service.name", "kimi-run"),
			attribute.String("service.version", opts.Version),
		),
		// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the defaults. No process
		// detector: the command line holds the prompt.
		resource.WithFromEnv(),
	)
	if res == nil {
		return nil, nil, fmt.Errorf("telemetry resource: %w", err)
	}
	var warnings []string
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("telemetry: OTEL_RESOURCE_ATTRIBUTES: %v", err))
	}
	traces, metrics := signals(opts.Getenv)
	if traces {
		exp, w, err := newTraceExporter(ctx, opts.Getenv, &t.lost)
		warnings = append(warnings, w...)
		if err != nil {
			return nil, warnings, err
		}
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		t.tracer = t.tp.Tracer(scope, trace.WithInstrumentationVersion(opts.Version))
	}
	if metrics {
		exp, w, err := newMetricExporter(ctx, opts.Getenv, &t.lost)
		warnings = append(warnings, w...)
		if err != nil {
			t.shutdownProviders(ctx)
			return nil, warnings, err
		}
		t.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		t.inst = newInstruments(t.mp.Meter(scope))
	}
	if t.mp == nil {
		t.inst = newInstruments(nil)
	}
	t.startRun(parentContext(ctx, opts.Getenv))
	return t, warnings, nil
}

// scope is the instrumentation scope of kimi-run's spans and metrics.
const scope = "github.com/kimi-run/kimi-run"

// parentContext carries the trace a CI system propagated in TRACEPARENT (and TRACESTATE),
// so a pipeline's own trace contains the run.
func parentContext(ctx context.Context, getenv func(string) string) context.Context {
	tp := strings.TrimSpace(getenv("TRACEPARENT"))
	if tp == "" {
		return ctx
	}
	carrier := propagation.MapCarrier{"traceparent": tp, "tracestate": strings.TrimSpace(getenv("TRACESTATE"))}
	return propagation.TraceContext{}.Extract(ctx, carrier)
}

// flushTimeout is OTEL_EXPORTER_OTLP_TIMEOUT (milliseconds) when set, else
// DefaultFlushTimeout: the spec's 10 s default is too long for a job to wait on a
// collector that is down.
func flushTimeout(getenv func(string) string) time.Duration {
	if ms, err := strconv.Atoi(strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TIMEOUT"))); err == nil && ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return DefaultFlushTimeout
}

// recordErr takes the errors the SDK reports on its own (its error handler); the
// exporters record theirs under their signal.
func (t *Telemetry) recordErr(err error) { t.lost.add("", err) }

// FlushTimeout is the most Shutdown waits for the collector.
func (t *Telemetry) FlushTimeout() time.Duration { return t.flush }

// Shutdown ends what is still open, exports what is left and stops the exporters, within
// FlushTimeout whatever the collector does. The error says why something was not
// delivered; it must never change the run's outcome.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	t.mu.Lock()
	t.abandon(time.Now())
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.flush)
	defer cancel()
	t.shutdownProviders(ctx)
	return t.lost.err()
}

// shutdownProviders flushes traces and metrics side by side, so the bound holds for both.
// A signal whose exporter failed keeps that failure as its cause; one that only ran out of
// time says so.
func (t *Telemetry) shutdownProviders(ctx context.Context) {
	var wg sync.WaitGroup
	if t.tp != nil {
		wg.Go(func() { t.lost.add("traces", t.tp.Shutdown(ctx)) })
	}
	if t.mp != nil {
		wg.Go(func() { t.lost.add("metrics", t.mp.Shutdown(ctx)) })
	}
	wg.Wait()
}

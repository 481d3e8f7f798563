package telemetry

import (
	"context"
	"fmt"
	"strings"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// protocol is OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL, else
// http/protobuf (the spec's default). http/json is not offered by the Go SDK: it falls back
// to http/protobuf with a warning.
func protocol(getenv func(string) string, signal string) (string, []string) {
	name := "OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL"
	p := strings.TrimSpace(getenv(name))
	if p == "" {
		name = "OTEL_EXPORTER_OTLP_PROTOCOL"
		p = strings.TrimSpace(getenv(name))
	}
	switch p {
	case "", "http/protobuf":
		return "http/protobuf", nil
	case "grpc":
		return "grpc", nil
	}
	return "http/protobuf", []string{fmt.Sprintf("telemetry: %s=%q is not supported (grpc or http/protobuf); using http/protobuf", name, p)}
}

// spanExporter and metricExporter send OTLP with the small client above. Creating one
// opens no connection.

// A failed export is also recorded in lost under its signal.

type spanExporter struct {
	c    *client
	lost *losses
}

func newTraceExporter(_ context.Context, getenv func(string) string, lost *losses) (sdktrace.SpanExporter, []string, error) {
	c, warnings, err := newClient(getenv, "TRACES")
	if err != nil {
		return nil, warnings, err
	}
	return spanExporter{c: c, lost: lost}, warnings, nil
}

func (e spanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	err := e.c.send(ctx, encodeSpans(spans))
	e.lost.add("traces", err)
	return err
}

func (e spanExporter) Shutdown(context.Context) error { e.c.close(); return nil }

type metricExporter struct {
	c    *client
	lost *losses
}

func newMetricExporter(_ context.Context, getenv func(string) string, lost *losses) (sdkmetric.Exporter, []string, error) {
	c, warnings, err := newClient(getenv, "METRICS")
	if err != nil {
		return nil, warnings, err
	}
	return metricExporter{c: c, lost: lost}, warnings, nil
}

func (metricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

func (metricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (e metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if len(rm.ScopeMetrics) == 0 {
		return nil
	}
	err := e.c.send(ctx, encodeMetrics(rm))
	e.lost.add("metrics", err)
	return err
}

func (metricExporter) ForceFlush(context.Context) error { return nil }

func (e metricExporter) Shutdown(context.Context) error { e.c.close(); return nil }

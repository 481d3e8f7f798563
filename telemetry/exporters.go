package telemetry

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
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

// The exporters read the endpoint, headers, timeout, compression and TLS settings from the
// OTEL_EXPORTER_OTLP_* variables themselves; creating one opens no connection.

func newTraceExporter(ctx context.Context, getenv func(string) string) (sdktrace.SpanExporter, []string, error) {
	p, warnings := protocol(getenv, "TRACES")
	var exp sdktrace.SpanExporter
	var err error
	if p == "grpc" {
		exp, err = otlptracegrpc.New(ctx)
	} else {
		exp, err = otlptracehttp.New(ctx)
	}
	if err != nil {
		return nil, warnings, fmt.Errorf("telemetry: the OTLP trace exporter (%s): %w", p, err)
	}
	return exp, warnings, nil
}

func newMetricExporter(ctx context.Context, getenv func(string) string) (sdkmetric.Exporter, []string, error) {
	p, warnings := protocol(getenv, "METRICS")
	var exp sdkmetric.Exporter
	var err error
	if p == "grpc" {
		exp, err = otlpmetricgrpc.New(ctx)
	} else {
		exp, err = otlpmetrichttp.New(ctx)
	}
	if err != nil {
		return nil, warnings, fmt.Errorf("telemetry: the OTLP metric exporter (%s): %w", p, err)
	}
	return exp, warnings, nil
}

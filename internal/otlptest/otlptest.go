// Package otlptest is an OTLP receiver for tests: it takes traces and metrics over
// OTLP/HTTP (protobuf) or OTLP/gRPC on loopback, decodes them with the protocol's own
// generated types, and keeps them for assertions. A receiver that never answers (Stall)
// stands in for a collector that is down.
package otlptest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Span is a received span with its resource's attributes.
type Span struct {
	*tracepb.Span
	Resource map[string]string
}

// Attr returns the span's attribute key as text ("" when absent).
func (s Span) Attr(key string) string { return attrText(s.Attributes, key) }

// Has reports whether the span has attribute key.
func (s Span) Has(key string) bool {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return true
		}
	}
	return false
}

// TraceID and SpanID are the ids as hex; ParentID is the parent's ("" for a root).
func (s Span) TraceID() string  { return hex.EncodeToString(s.Span.TraceId) }
func (s Span) SpanID() string   { return hex.EncodeToString(s.Span.SpanId) }
func (s Span) ParentID() string { return hex.EncodeToString(s.ParentSpanId) }

// Receiver collects what exporters send it.
type Receiver struct {
	// URL is the OTLP/HTTP base (http://127.0.0.1:port), for OTEL_EXPORTER_OTLP_ENDPOINT;
	// Addr is the gRPC endpoint in the same form, on its own port.
	URL, Addr string

	mu      sync.Mutex
	header  http.Header  // of the last OTLP/HTTP request
	raw     bytes.Buffer // every request body, decompressed, for "never contains" checks
	spans   []Span
	metrics []*metricpb.Metric
}

// New starts an OTLP/HTTP and an OTLP/gRPC receiver on loopback, stopped at the end of
// the test.
func New(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{}
	hs := httptest.NewServer(http.HandlerFunc(r.serveHTTP))
	t.Cleanup(hs.Close)
	r.URL = hs.URL
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(gs, traceService{r: r})
	colmetricpb.RegisterMetricsServiceServer(gs, metricService{r: r})
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)
	r.Addr = "http://" + lis.Addr().String()
	return r
}

func (r *Receiver) serveHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.header = req.Header.Clone()
	r.mu.Unlock()
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var resp proto.Message
	switch req.URL.Path {
	case "/v1/traces":
		var m coltracepb.ExportTraceServiceRequest
		if err = proto.Unmarshal(raw, &m); err == nil {
			r.addTraces(raw, &m)
		}
		resp = &coltracepb.ExportTraceServiceResponse{}
	case "/v1/metrics":
		var m colmetricpb.ExportMetricsServiceRequest
		if err = proto.Unmarshal(raw, &m); err == nil {
			r.addMetrics(raw, &m)
		}
		resp = &colmetricpb.ExportMetricsServiceResponse{}
	default:
		http.NotFound(w, req)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func (r *Receiver) addTraces(raw []byte, m *coltracepb.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw.Write(raw)
	for _, rs := range m.ResourceSpans {
		res := map[string]string{}
		for _, kv := range rs.GetResource().GetAttributes() {
			res[kv.Key] = valueText(kv.Value)
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				r.spans = append(r.spans, Span{Span: s, Resource: res})
			}
		}
	}
}

func (r *Receiver) addMetrics(raw []byte, m *colmetricpb.ExportMetricsServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw.Write(raw)
	for _, rm := range m.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			r.metrics = append(r.metrics, sm.Metrics...)
		}
	}
}

type traceService struct {
	coltracepb.UnimplementedTraceServiceServer
	r *Receiver
}

func (s traceService) Export(_ context.Context, m *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	raw, _ := proto.Marshal(m)
	s.r.addTraces(raw, m)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

type metricService struct {
	colmetricpb.UnimplementedMetricsServiceServer
	r *Receiver
}

func (s metricService) Export(_ context.Context, m *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	raw, _ := proto.Marshal(m)
	s.r.addMetrics(raw, m)
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

// Header returns the headers of the last OTLP/HTTP request.
func (r *Receiver) Header() http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.header.Clone()
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Named returns the received spans called name.
func (r *Receiver) Named(name string) []Span {
	var out []Span
	for _, s := range r.Spans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Raw returns every body received, decoded from gzip: a secret must appear nowhere in it.
func (r *Receiver) Raw() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Clone(r.raw.Bytes())
}

// Sum adds up the data points of the counter (or histogram counts' sums) called name whose
// attributes include every key=value of match.
func (r *Receiver) Sum(name string, match map[string]string) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var total float64
	for _, m := range r.metrics {
		if m.Name != name {
			continue
		}
		switch d := m.Data.(type) {
		case *metricpb.Metric_Sum:
			for _, p := range d.Sum.DataPoints {
				if matches(p.Attributes, match) {
					total += p.GetAsDouble() + float64(p.GetAsInt())
				}
			}
		case *metricpb.Metric_Histogram:
			for _, p := range d.Histogram.DataPoints {
				if matches(p.Attributes, match) {
					total += p.GetSum()
				}
			}
		}
	}
	return total
}

// Count returns the number of measurements of the histogram called name matching match.
func (r *Receiver) Count(name string, match map[string]string) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n uint64
	for _, m := range r.metrics {
		if h, ok := m.Data.(*metricpb.Metric_Histogram); ok && m.Name == name {
			for _, p := range h.Histogram.DataPoints {
				if matches(p.Attributes, match) {
					n += p.Count
				}
			}
		}
	}
	return n
}

func matches(attrs []*commonpb.KeyValue, match map[string]string) bool {
	for k, v := range match {
		if attrText(attrs, k) != v {
			return false
		}
	}
	return true
}

func attrText(attrs []*commonpb.KeyValue, key string) string {
	for _, kv := range attrs {
		if kv.Key == key {
			return valueText(kv.Value)
		}
	}
	return ""
}

func valueText(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return itoa(x.IntValue)
	case *commonpb.AnyValue_BoolValue:
		if x.BoolValue {
			return "true"
		}
		return "false"
	case *commonpb.AnyValue_DoubleValue:
		return ftoa(x.DoubleValue)
	}
	return ""
}

// Stall starts a server that accepts connections and never answers, for a collector that
// hangs; its address is an OTLP/HTTP endpoint.
func Stall(t testing.TB) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				close(done)
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never read or answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		lis.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + lis.Addr().String()
}

// ClosedPort returns an endpoint on a loopback port nothing listens on.
func ClosedPort(t testing.TB) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return "http://" + addr
}

func itoa(i int64) string   { return strconv.FormatInt(i, 10) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

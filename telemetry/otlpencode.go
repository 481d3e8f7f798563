package telemetry

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// encodeSpans writes an ExportTraceServiceRequest: one ResourceSpans per resource, one
// ScopeSpans per instrumentation scope, in the order the spans came.
func encodeSpans(spans []sdktrace.ReadOnlySpan) []byte {
	type group struct {
		res    *resource.Resource
		scopes []instrumentation.Scope
		spans  map[instrumentation.Scope][]sdktrace.ReadOnlySpan
	}
	var groups []*group
	byRes := map[attribute.Distinct]*group{}
	for _, s := range spans {
		key := s.Resource().Equivalent()
		g := byRes[key]
		if g == nil {
			g = &group{res: s.Resource(), spans: map[instrumentation.Scope][]sdktrace.ReadOnlySpan{}}
			byRes[key] = g
			groups = append(groups, g)
		}
		sc := s.InstrumentationScope()
		sc.Attributes = attribute.Set{} // not comparable beyond name and version here
		if _, ok := g.spans[sc]; !ok {
			g.scopes = append(g.scopes, sc)
		}
		g.spans[sc] = append(g.spans[sc], s)
	}
	var b pb
	for _, g := range groups {
		b.msg(1, func(rs *pb) {
			rs.msg(1, func(r *pb) { r.keyValues(1, g.res.Attributes()) })
			for _, sc := range g.scopes {
				rs.msg(2, func(ss *pb) {
					ss.msg(1, func(s *pb) { s.str(1, sc.Name); s.str(2, sc.Version) })
					for _, span := range g.spans[sc] {
						ss.msg(2, func(m *pb) { encodeSpan(m, span) })
					}
					ss.str(3, sc.SchemaURL)
				})
			}
			rs.str(3, g.res.SchemaURL())
		})
	}
	return b
}

func encodeSpan(b *pb, s sdktrace.ReadOnlySpan) {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b.bytes(1, tid[:])
	b.bytes(2, sid[:])
	b.str(3, sc.TraceState().String())
	if p := s.Parent(); p.IsValid() {
		psid := p.SpanID()
		b.bytes(4, psid[:])
	}
	b.str(5, s.Name())
	b.varint(6, uint64(s.SpanKind()))
	b.fixed64(7, unixNano(s.StartTime()))
	b.fixed64(8, unixNano(s.EndTime()))
	b.keyValues(9, s.Attributes())
	b.varint(10, uint64(s.DroppedAttributes()))
	for _, e := range s.Events() {
		b.msg(11, func(m *pb) {
			m.fixed64(1, unixNano(e.Time))
			m.str(2, e.Name)
			m.keyValues(3, e.Attributes)
		})
	}
	b.varint(12, uint64(s.DroppedEvents()))
	st := s.Status()
	b.msg(15, func(m *pb) {
		m.str(2, st.Description)
		switch st.Code {
		case codes.Ok:
			m.varint(3, 1)
		case codes.Error:
			m.varint(3, 2)
		}
	})
	flags := uint32(sc.TraceFlags()) | 0x100 // bit 8: whether the parent is remote is known
	if s.Parent().IsRemote() {
		flags |= 0x200
	}
	b.fixed32(16, flags)
}

// encodeMetrics writes an ExportMetricsServiceRequest with the sums, gauges and
// histograms kimi-run records.
func encodeMetrics(rm *metricdata.ResourceMetrics) []byte {
	var b pb
	b.msg(1, func(r *pb) {
		r.msg(1, func(res *pb) {
			if rm.Resource != nil {
				res.keyValues(1, rm.Resource.Attributes())
			}
		})
		for _, sm := range rm.ScopeMetrics {
			r.msg(2, func(s *pb) {
				s.msg(1, func(sc *pb) { sc.str(1, sm.Scope.Name); sc.str(2, sm.Scope.Version) })
				for _, m := range sm.Metrics {
					s.msg(2, func(mb *pb) { encodeMetric(mb, m) })
				}
				s.str(3, sm.Scope.SchemaURL)
			})
		}
		if rm.Resource != nil {
			r.str(3, rm.Resource.SchemaURL())
		}
	})
	return b
}

// encodeMetric writes m, of the kinds the instruments make: int and float sums, float
// histograms.
func encodeMetric(b *pb, m metricdata.Metrics) {
	b.str(1, m.Name)
	b.str(2, m.Description)
	b.str(3, m.Unit)
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		encodeSum(b, d, func(n *pb, v int64) { n.tag(6, wireFixed64); n.appendFixed(uint64(v)) })
	case metricdata.Sum[float64]:
		encodeSum(b, d, func(n *pb, v float64) { n.double(4, v) })
	case metricdata.Histogram[float64]:
		b.msg(9, func(h *pb) {
			for _, p := range d.DataPoints {
				h.msg(1, func(n *pb) {
					n.fixed64(2, unixNano(p.StartTime))
					n.fixed64(3, unixNano(p.Time))
					n.fixed64(4, p.Count)
					n.double(5, p.Sum)
					n.packedFixed(6, p.BucketCounts)
					n.packedDouble(7, p.Bounds)
					n.keyValues(9, p.Attributes.ToSlice())
					if v, ok := p.Min.Value(); ok {
						n.double(11, v)
					}
					if v, ok := p.Max.Value(); ok {
						n.double(12, v)
					}
				})
			}
			h.varint(2, temporality(d.Temporality))
		})
	}
}

// encodeSum writes a sum; value writes a point's value.
func encodeSum[N int64 | float64](b *pb, d metricdata.Sum[N], value func(*pb, N)) {
	b.msg(7, func(s *pb) {
		for _, p := range d.DataPoints {
			s.msg(1, func(n *pb) { numberPoint(n, p.Attributes, p.StartTime, p.Time); value(n, p.Value) })
		}
		s.varint(2, temporality(d.Temporality))
		if d.IsMonotonic {
			s.varint(3, 1)
		}
	})
}

func numberPoint(n *pb, attrs attribute.Set, start, at interface{ UnixNano() int64 }) {
	n.fixed64(2, unixNano(start))
	n.fixed64(3, unixNano(at))
	n.keyValues(7, attrs.ToSlice())
}

// temporality maps the SDK's temporality to OTLP's enum (delta 1, cumulative 2).
func temporality(t metricdata.Temporality) uint64 {
	switch t {
	case metricdata.DeltaTemporality:
		return 1
	case metricdata.CumulativeTemporality:
		return 2
	}
	return 0
}

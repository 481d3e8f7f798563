package telemetry

import (
	"encoding/binary"
	"math"

	"go.opentelemetry.io/otel/attribute"
)

// pb appends protocol buffer fields. The OTLP messages kimi-run sends are few and fixed, so
// they are written by hand (field numbers from opentelemetry-proto) rather than through the
// generated types: those, with the gRPC stubs that come with them, cost every start of the
// binary their package initialisers, telemetry on or off (docs/performance.md).
type pb []byte

const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func (b *pb) tag(field, wire int) { *b = binary.AppendUvarint(*b, uint64(field)<<3|uint64(wire)) }

func (b *pb) varint(field int, v uint64) {
	if v != 0 {
		b.tag(field, wireVarint)
		*b = binary.AppendUvarint(*b, v)
	}
}

func (b *pb) fixed64(field int, v uint64) {
	if v != 0 {
		b.tag(field, wireFixed64)
		*b = binary.LittleEndian.AppendUint64(*b, v)
	}
}

func (b *pb) fixed32(field int, v uint32) {
	if v != 0 {
		b.tag(field, wireFixed32)
		*b = binary.LittleEndian.AppendUint32(*b, v)
	}
}

// double writes v even when it is 0: it is used for oneof and optional fields.
func (b *pb) double(field int, v float64) {
	b.tag(field, wireFixed64)
	*b = binary.LittleEndian.AppendUint64(*b, math.Float64bits(v))
}

func (b *pb) bytes(field int, v []byte) {
	if len(v) > 0 {
		b.tag(field, wireBytes)
		*b = binary.AppendUvarint(*b, uint64(len(v)))
		*b = append(*b, v...)
	}
}

func (b *pb) str(field int, s string) {
	if s != "" {
		b.tag(field, wireBytes)
		*b = binary.AppendUvarint(*b, uint64(len(s)))
		*b = append(*b, s...)
	}
}

// msg writes a nested message, written by fn, even when it is empty.
func (b *pb) msg(field int, fn func(*pb)) {
	var inner pb
	fn(&inner)
	b.tag(field, wireBytes)
	*b = binary.AppendUvarint(*b, uint64(len(inner)))
	*b = append(*b, inner...)
}

// keyValues writes attributes as repeated KeyValue fields.
func (b *pb) keyValues(field int, kvs []attribute.KeyValue) {
	for _, kv := range kvs {
		b.msg(field, func(m *pb) {
			m.str(1, string(kv.Key))
			m.msg(2, func(v *pb) { v.anyValue(kv.Value) })
		})
	}
}

// anyValue writes the fields of an AnyValue.
func (b *pb) anyValue(v attribute.Value) {
	switch v.Type() {
	case attribute.STRING:
		b.tag(1, wireBytes) // an empty string is still a value
		s := v.AsString()
		*b = binary.AppendUvarint(*b, uint64(len(s)))
		*b = append(*b, s...)
	case attribute.BOOL:
		b.tag(2, wireVarint)
		if v.AsBool() {
			*b = append(*b, 1)
		} else {
			*b = append(*b, 0)
		}
	case attribute.INT64:
		b.tag(3, wireVarint)
		*b = binary.AppendUvarint(*b, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		b.double(4, v.AsFloat64())
	default: // a slice: no attribute of kimi-run's or of its resource is one
		b.str(1, v.String())
	}
}

func unixNano(t interface{ UnixNano() int64 }) uint64 {
	if n := t.UnixNano(); n > 0 {
		return uint64(n)
	}
	return 0
}

func (b *pb) appendFixed(v uint64) { *b = binary.LittleEndian.AppendUint64(*b, v) }

func (b *pb) packedFixed(field int, vs []uint64) {
	if len(vs) == 0 {
		return
	}
	b.tag(field, wireBytes)
	*b = binary.AppendUvarint(*b, uint64(8*len(vs)))
	for _, v := range vs {
		b.appendFixed(v)
	}
}

func (b *pb) packedDouble(field int, vs []float64) {
	if len(vs) == 0 {
		return
	}
	b.tag(field, wireBytes)
	*b = binary.AppendUvarint(*b, uint64(8*len(vs)))
	for _, v := range vs {
		b.appendFixed(math.Float64bits(v))
	}
}

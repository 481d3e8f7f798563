package tools

import (
	"context"
	"io"
	"sync"
	"time"
)

// OutputMeter counts the output a running tool call has produced so far, for the heartbeat
// that reports a long call (agent.Agent.Heartbeat): a tool that streams output (Shell)
// writes what it receives through the meter of its call's context as well.
type OutputMeter struct {
	now   func() time.Time
	mu    sync.Mutex
	bytes int64
	last  time.Time
}

// NewOutputMeter returns a meter that stamps output with now (time.Now when nil).
func NewOutputMeter(now func() time.Time) *OutputMeter {
	if now == nil {
		now = time.Now
	}
	return &OutputMeter{now: now}
}

// Write counts p as output produced now. It never fails.
func (m *OutputMeter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	t := m.now()
	m.mu.Lock()
	m.bytes += int64(len(p))
	m.last = t
	m.mu.Unlock()
	return len(p), nil
}

// Read returns the bytes counted so far and when the last of them came (zero: none yet).
func (m *OutputMeter) Read() (bytes int64, last time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes, m.last
}

type meterKey struct{}

// WithOutputMeter returns a context that carries the meter of the tool call being run.
func WithOutputMeter(ctx context.Context, m *OutputMeter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// OutputMeterOf returns the meter of the tool call being run, or nil.
func OutputMeterOf(ctx context.Context) *OutputMeter {
	m, _ := ctx.Value(meterKey{}).(*OutputMeter)
	return m
}

// metered is a writer that passes everything on to w and counts it on m.
type metered struct {
	w io.Writer
	m *OutputMeter
}

func (w *metered) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.m.Write(p[:n])
	return n, err
}

// meterOutput returns w counting what it takes on the meter of ctx's call, or w itself
// when the call has none.
func meterOutput(ctx context.Context, w io.Writer) io.Writer {
	if m := OutputMeterOf(ctx); m != nil {
		return &metered{w: w, m: m}
	}
	return w
}

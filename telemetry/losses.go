package telemetry

import (
	"strings"
	"sync"
)

// losses keeps the first failure of each signal's export, so that the run can say in one
// line which signals did not fully reach the collector and why (docs/telemetry.md: "A
// collector that is down"). Errors the SDK reports without naming a signal are kept apart
// and used only when no signal's own error is known.
type losses struct {
	mu    sync.Mutex
	first map[string]error // "traces", "metrics", or "" for an error of neither
}

func (l *losses) add(signal string, err error) {
	if err == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first == nil {
		l.first = map[string]error{}
	}
	if _, ok := l.first[signal]; !ok {
		l.first[signal] = err
	}
}

// err is nil when nothing was lost.
func (l *losses) err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var e LostError
	for _, s := range []string{"traces", "metrics"} {
		if err, ok := l.first[s]; ok {
			e.Signals = append(e.Signals, s)
			e.Causes = append(e.Causes, err)
		}
	}
	if err, ok := l.first[""]; ok && len(e.Causes) == 0 {
		e.Causes = append(e.Causes, err)
	}
	if len(e.Causes) == 0 {
		return nil
	}
	return &e
}

// LostError says which signals were not fully delivered, each with its first cause.
type LostError struct {
	Signals []string // "traces", "metrics"; empty when the SDK did not say which
	Causes  []error  // one per signal, in the same order (one cause when Signals is empty)
}

// Error is one line: "traces: CAUSE; metrics: CAUSE".
func (e *LostError) Error() string {
	parts := make([]string, len(e.Causes))
	for i, c := range e.Causes {
		msg := strings.Join(strings.Fields(c.Error()), " ")
		if i < len(e.Signals) {
			msg = e.Signals[i] + ": " + msg
		}
		parts[i] = msg
	}
	return strings.Join(parts, "; ")
}

// Unwrap gives the causes to errors.Is and errors.As.
func (e *LostError) Unwrap() []error { return e.Causes }

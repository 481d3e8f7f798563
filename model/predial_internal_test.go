package model

import (
	"context"
	"errors"
	"net"
	"runtime"
	"testing"
)

// A request that waits for an early dial still under way gets that dial's outcome and
// does not dial again (an endpoint that drops packets would cost two dial timeouts); one
// that comes after the early dial failed dials again.
func TestPredialWaitsForOneDialOnly(t *testing.T) {
	refused := errors.New("connection refused")
	for _, c := range []struct {
		name      string
		endedLate bool // the early dial ends while the request waits
		wantDials int
	}{
		{"failed while the request waited", true, 0},
		{"failed before the request", false, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &Predial{addr: "example.com:443", done: make(chan struct{})}
			dials := 0
			dial := p.wrap(func(context.Context, string, string) (net.Conn, error) {
				dials++
				return nil, errors.New("a dial of its own")
			})
			if !c.endedLate {
				p.finish(nil, refused)
			}
			got := make(chan error, 1)
			go func() {
				_, err := dial(context.Background(), "tcp", "example.com:443")
				got <- err
			}()
			if c.endedLate {
				for !p.isWaiting() {
					runtime.Gosched()
				}
				p.finish(nil, refused)
			}
			err := <-got
			if dials != c.wantDials {
				t.Errorf("%d dials of its own, want %d", dials, c.wantDials)
			}
			if c.wantDials == 0 && !errors.Is(err, refused) {
				t.Errorf("error %v, want the early dial's", err)
			}
		})
	}
}

// isWaiting reports whether a request's dial waits for the early one.
func (p *Predial) isWaiting() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiting
}

package agent

import (
	"errors"
	"math/rand/v2"
	"time"

	retry "github.com/avast/retry-go/v4"

	"github.com/kimi-run/kimi-run/model"
)

// RetryPolicy says how failed model calls are retried.
type RetryPolicy struct {
	// Attempts is the total number of attempts per step, the first included (the run's
	// setting; less than 1 tries once).
	Attempts int
	// BaseDelay is the first backoff wait; it doubles per attempt (default 1 s).
	BaseDelay time.Duration
	// MaxDelay caps every wait, a provider's Retry-After included (default 60 s).
	MaxDelay time.Duration
	// Timer waits out the delays; nil uses real time. Tests pass one that does not sleep.
	Timer retry.Timer
	// Jitter returns a random duration in [0, d); nil uses math/rand.
	Jitter func(d time.Duration) time.Duration
}

func (p RetryPolicy) attempts() int {
	if p.Attempts < 1 {
		return 1
	}
	return p.Attempts
}

// delay is the wait before attempt n+1 after attempt n failed with err (n counts from 1).
func (p RetryPolicy) delay(n int, err error) time.Duration {
	maxDelay := p.MaxDelay
	if maxDelay <= 0 {
		maxDelay = 60 * time.Second
	}
	var pe *model.ProviderError
	if errors.As(err, &pe) && pe.RetryAfterSet() {
		return min(time.Duration(pe.RetryAfter)*time.Millisecond, maxDelay)
	}
	base := p.BaseDelay
	if base < 0 {
		base = 0
	} else if base == 0 {
		base = time.Second
	}
	d := base << min(n-1, 16)
	if base > 0 {
		jitter := p.Jitter
		if jitter == nil {
			jitter = func(d time.Duration) time.Duration { return rand.N(d) }
		}
		d += jitter(base)
	}
	return min(d, maxDelay)
}

type realTimer struct{}

func (realTimer) After(d time.Duration) <-chan time.Time { return time.After(d) }

// noWait is a retry.Timer that does not wait; for tests.
type noWait struct{}

func (noWait) After(time.Duration) <-chan time.Time {
	c := make(chan time.Time, 1)
	c <- time.Time{}
	return c
}

// NoWait is a retry.Timer that returns at once, so tests retry without sleeping.
var NoWait retry.Timer = noWait{}

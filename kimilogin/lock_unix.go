//go:build unix

package kimilogin

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive flock on path (created if need be), the lock Kimi CLI takes
// around its own refresh, waiting up to wait for another holder. It returns the release.
func lockFile(ctx context.Context, path string, wait time.Duration, sleep func(context.Context, time.Duration) error) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	const step = 50 * time.Millisecond
	for waited := time.Duration(0); ; waited += step {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
		case errors.Is(err, unix.EINTR):
			continue
		case !errors.Is(err, unix.EWOULDBLOCK):
			f.Close()
			return nil, err
		case waited >= wait:
			f.Close()
			return nil, errors.New("another process holds the login's lock")
		}
		if err := sleep(ctx, step); err != nil {
			f.Close()
			return nil, err
		}
	}
}

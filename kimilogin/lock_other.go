//go:build !unix

package kimilogin

import (
	"context"
	"time"
)

// lockFile is a no-op where flock is not available: the refresh is still written
// atomically, but two runs refreshing at the same moment are not kept apart.
func lockFile(context.Context, string, time.Duration, func(context.Context, time.Duration) error) (func(), error) {
	return func() {}, nil
}

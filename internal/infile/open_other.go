//go:build !unix

package infile

import (
	"context"
	"os"
)

// openNonblocking opens path for reading; outside Unix there are no FIFOs in the file
// system to wait on.
func openNonblocking(path string, _ bool) (*os.File, error) { return os.Open(path) }

// awaitWriter has nothing to wait for outside Unix.
func awaitWriter(_ context.Context, f *os.File, _ string) (*os.File, error) { return f, nil }

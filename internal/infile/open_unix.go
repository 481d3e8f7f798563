//go:build unix

package infile

import (
	"os"
	"syscall"

	"github.com/kimi-run/kimi-run/internal/beneath"
)

// openNonblocking opens path for reading without waiting: a FIFO without a writer, or a
// device that waits for a line, would otherwise block the thread in open(2) where no
// context can reach it. For a regular file the flag changes nothing. An own file follows
// no link (beneath.Open).
func openNonblocking(path string, own bool) (*os.File, error) {
	if own {
		return beneath.Open(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	}
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

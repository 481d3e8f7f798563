//go:build unix

package infile

import (
	"os"
	"syscall"
)

// openNonblocking opens path for reading without waiting: a FIFO without a writer, or a
// device that waits for a line, would otherwise block the thread in open(2) where no
// context can reach it. For a regular file the flag changes nothing.
func openNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

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

// release lets a reader waiting in open(2) on the FIFO at path go: a writer that opens and
// closes at once is what it waits for (it then reads an empty file, and is closed).
func release(path string) {
	if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
}

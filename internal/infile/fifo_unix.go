//go:build unix && !linux

package infile

import (
	"context"
	"os"
	"syscall"
)

// awaitWriter opens the FIFO at path again as a blocking reader does, waiting for a
// writer, under ctx (see openWaiting); f, opened without waiting, is closed first.
func awaitWriter(ctx context.Context, f *os.File, path string) (*os.File, error) {
	f.Close()
	return openWaiting(ctx, path)
}

// release lets a reader waiting in open(2) on the FIFO at path go: a writer that opens and
// closes at once is what it waits for (it then reads an empty file, and is closed).
func release(path string) {
	if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
}

// openWaiting opens the FIFO at path as a blocking reader does, waiting for a writer, but
// gives up when ctx ends: the open then goes on in its goroutine, which a writer of our
// own releases when it can.
func openWaiting(ctx context.Context, path string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-ctx.Done():
		release(path)
		go func() {
			if o := <-done; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, context.Cause(ctx)
	}
}

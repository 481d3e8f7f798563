package infile

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// awaitWriter waits, under ctx, until the FIFO f (opened without waiting) has had a writer:
// it holds data, or a writer came and went. It keeps f open all along, so what a writer
// that comes and goes at once leaves in the pipe is read, not lost with a second open. The
// wait is the runtime's poller's, which the context's deadline ends. f is closed on error.
func awaitWriter(ctx context.Context, f *os.File, _ string) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Unix(1, 0)) })
	var pollErr error
	err = rc.Read(func(fd uintptr) bool {
		// Linux reports POLLHUP on a FIFO's reader only once a writer has come since it
		// was opened, so neither flag means: no writer yet, wait.
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(pfd, 0)
		if err != nil && !errors.Is(err, unix.EINTR) {
			pollErr = err
			return true
		}
		return n > 0 && pfd[0].Revents&(unix.POLLIN|unix.POLLHUP|unix.POLLERR) != 0
	})
	stop()
	if err == nil {
		err = pollErr
	}
	if err != nil {
		f.Close()
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	if err := f.SetReadDeadline(time.Time{}); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

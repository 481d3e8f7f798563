//go:build linux || darwin

package search

import (
	"io"
	"syscall"
)

// openFile opens a file for searching with plain system calls. os.Open would also
// try to register each file with the network poller and attach a finalizer, which costs
// a system call and an allocation per file in a search of thousands of files.
// O_NONBLOCK keeps a FIFO passed as the path argument from blocking the call.
func openFile(path string) (io.ReadCloser, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		return rawFile(fd), nil
	}
}

// rawFile is an open file descriptor.
type rawFile int

func (f rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(int(f), p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f rawFile) Close() error { return syscall.Close(int(f)) }

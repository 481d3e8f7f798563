//go:build unix

package tools

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// appendIn appends data to the file name in dir and returns its new size. It never
// follows a symbolic link there (the caller resolved the path's links already; one that
// appears meanwhile was put there to redirect the write) and never blocks on a FIFO.
// With oneLink it refuses a file that has other hard links, whose other names may lie
// outside the directories the sandbox lets the tool write.
func appendIn(dir *os.File, name string, data []byte, oneLink bool) (int64, error) {
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(newFileMode))
	if err != nil {
		return 0, &fs.PathError{Op: "open", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir.Name(), name))
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if !info.Mode().IsRegular() {
		return 0, fmt.Errorf("it is not a regular file (%s)", info.Mode().Type())
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && oneLink && st.Nlink > 1 {
		return 0, fmt.Errorf("it has %d hard links, and under the sandbox appends go only to files with one, since another name may be outside the writable dirs; write the whole file with mode overwrite instead, which replaces this name only", st.Nlink)
	}
	if _, err := f.Write(data); err != nil {
		return 0, err
	}
	if info, err = f.Stat(); err != nil {
		return 0, err
	}
	return info.Size(), f.Close()
}

//go:build unix

package atomicfile

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// createTemp creates a new hidden file for name in dir, relative to the directory handle,
// without following a link.
func createTemp(dir *os.File, name string) (*os.File, string, error) {
	dfd := int(dir.Fd())
	for range 100 {
		tmp := "." + name + "." + strconv.FormatUint(rand.Uint64(), 36) + ".tmp"
		fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == unix.EEXIST {
			continue
		}
		if err != nil {
			return nil, "", &fs.PathError{Op: "create", Path: filepath.Join(dir.Name(), tmp), Err: err}
		}
		return os.NewFile(uintptr(fd), filepath.Join(dir.Name(), tmp)), tmp, nil
	}
	return nil, "", &fs.PathError{Op: "create", Path: filepath.Join(dir.Name(), "."+name+".*.tmp"), Err: errNoTemp}
}

func rename(dir *os.File, from, to string) error {
	dfd := int(dir.Fd())
	if err := unix.Renameat(dfd, from, dfd, to); err != nil {
		return &fs.PathError{Op: "rename", Path: filepath.Join(dir.Name(), to), Err: err}
	}
	return nil
}

func remove(dir *os.File, name string) { unix.Unlinkat(int(dir.Fd()), name, 0) }

func syncDir(dir *os.File) { _ = dir.Sync() }

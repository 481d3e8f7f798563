//go:build unix

package run

import (
	"errors"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// mkdirChain makes the directories names below base (a real path, free of links), one at a
// time, each made and opened relative to its parent's descriptor without following a link:
// a link swapped in meanwhile fails the call instead of leading it elsewhere.
func mkdirChain(base string, names []string) error {
	const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW
	fd, err := unix.Open("/", dirFlags, 0)
	if err != nil {
		return err
	}
	defer func() { unix.Close(fd) }()
	step := func(name string, create bool) error {
		if create {
			if err := unix.Mkdirat(fd, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				return err
			}
		}
		next, err := unix.Openat(fd, name, dirFlags, 0)
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return errors.New(name + " was replaced by a symbolic link or a file meanwhile")
		}
		if err != nil {
			return err
		}
		unix.Close(fd)
		fd = next
		return nil
	}
	for _, name := range strings.Split(strings.Trim(filepath.ToSlash(base), "/"), "/") {
		if name == "" {
			continue
		}
		if err := step(name, false); err != nil {
			return err
		}
	}
	for _, name := range names {
		if err := step(name, true); err != nil {
			return err
		}
	}
	return nil
}

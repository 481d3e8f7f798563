//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrPathChanged means a directory on the way to a file was replaced by a symbolic link
// while a file tool was about to write there.
var ErrPathChanged = errors.New("a directory on the way was replaced by a symbolic link meanwhile")

// OpenDir opens dir, the directory a file tool is about to write a file in, so that the
// write cannot land anywhere else: dir is checked against the writable roots, then opened
// beneath its root without following any symbolic link (openat2 with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS, or one O_NOFOLLOW step per component on kernels before 5.6). A link
// swapped in after the check fails the open instead of leading the write outside.
// The tool then creates, renames and opens its files relative to the directory.
func (p Policy) OpenDir(dir string) (*os.File, error) {
	if !p.restrictsFiles() {
		return os.Open(dir)
	}
	real, err := realPath(dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: resolve %s: %w", dir, err)
	}
	roots := p.WritableRoots()
	for _, root := range roots {
		r, err := realPath(root)
		if err != nil || !within(real, r) {
			continue
		}
		rel, err := filepath.Rel(r, real)
		if err != nil {
			continue
		}
		f, err := openBeneath(r, rel)
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) || errors.Is(err, unix.ENOTDIR) {
			return nil, fmt.Errorf("sandbox: open %s: %w", dir, ErrPathChanged)
		}
		if err != nil {
			return nil, fmt.Errorf("sandbox: open %s: %w", dir, err)
		}
		return os.NewFile(uintptr(f), real), nil
	}
	return nil, &DeniedError{Path: dir, Roots: roots}
}

// openBeneath opens root (absolute, free of links) and then rel below it, never following
// a symbolic link, and returns the directory's descriptor.
func openBeneath(root, rel string) (int, error) {
	const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	rootFD, err := unix.Openat2(unix.AT_FDCWD, root, &unix.OpenHow{Flags: dirFlags, Resolve: unix.RESOLVE_NO_SYMLINKS})
	if errors.Is(err, unix.ENOSYS) {
		return walkNoFollow(strings.TrimPrefix(filepath.Join(root, rel), "/"))
	}
	if err != nil {
		return -1, err
	}
	defer unix.Close(rootFD)
	return unix.Openat2(rootFD, rel, &unix.OpenHow{Flags: dirFlags,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
}

// walkNoFollow opens the directory at path (relative to /) one component at a time, each
// with O_NOFOLLOW: openat2's guarantee for kernels that lack it.
func walkNoFollow(path string) (int, error) {
	const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW
	fd, err := unix.Open("/", dirFlags, 0)
	if err != nil {
		return -1, err
	}
	for _, name := range strings.Split(path, "/") {
		if name == "" || name == "." {
			continue
		}
		if name == ".." {
			unix.Close(fd)
			return -1, unix.EXDEV
		}
		next, err := unix.Openat(fd, name, dirFlags, 0)
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

//go:build unix

package beneath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

func open(root, rel string, create bool, perm fs.FileMode) (*os.File, error) {
	rootFD, err := unix.Open(root, dirFlags, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	return openFD(rootFD, filepath.Join(root, rel), rel, create, perm)
}

// heldFD is a held root's descriptor duplicated for one call: a bare descriptor, so that the
// call pays one system call for it rather than an os.File's set-up.
type heldFD = int

// dupHeld duplicates the held root f's descriptor, close-on-exec.
func dupHeld(f *os.File) (int, error) { return unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0) }

// openHeld opens rel below the held root's duplicate fd as open does, and closes fd; path
// names the result.
func openHeld(fd int, path, rel string, create bool, perm fs.FileMode) (*os.File, error) {
	return openFD(fd, path, rel, create, perm)
}

// openFD opens rel below rootFD, which it closes.
func openFD(rootFD int, path, rel string, create bool, perm fs.FileMode) (*os.File, error) {
	parts := names(rel)
	if slices.Contains(parts, "..") {
		unix.Close(rootFD)
		return nil, &fs.PathError{Op: "open", Path: path, Err: linkError{unix.EXDEV}}
	}
	if len(parts) == 0 {
		parts = []string{"."} // the root itself, in a handle of its own (a dup shares its offset)
	}
	fd, err := openat2Dir(rootFD, strings.Join(parts, "/"))
	if err != nil && (errors.Is(err, unix.ENOSYS) || create && errors.Is(err, unix.ENOENT)) {
		fd, err = walk(rootFD, parts, create, perm)
		rootFD = -1 // walk closed it
	}
	if rootFD >= 0 {
		unix.Close(rootFD)
	}
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			err = linkError{err}
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// walk opens the directories names below fd one at a time, each with O_NOFOLLOW, making a
// missing one when create is set; it closes fd.
func walk(fd int, names []string, create bool, perm fs.FileMode) (int, error) {
	for _, name := range names {
		next, err := unix.Openat(fd, name, dirFlags|unix.O_NOFOLLOW, 0)
		if create && errors.Is(err, unix.ENOENT) {
			if err = unix.Mkdirat(fd, name, uint32(perm.Perm())); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = unix.Openat(fd, name, dirFlags|unix.O_NOFOLLOW, 0)
			}
		}
		if errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
			var st unix.Stat_t
			if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				err = unix.ELOOP
			}
		}
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// OpenFile opens the file name in dir, never following a link at the name (flag gets
// O_NOFOLLOW and O_CLOEXEC; a link there fails with ErrLink).
func OpenFile(dir *os.File, name string, flag int, perm fs.FileMode) (*os.File, error) {
	path := filepath.Join(dir.Name(), name)
	fd, err := unix.Openat(int(dir.Fd()), name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if errors.Is(err, unix.ELOOP) {
		err = linkError{err}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// Remove removes the name in dir (a link is removed, not followed); not a directory.
func Remove(dir *os.File, name string) error {
	if err := unix.Unlinkat(int(dir.Fd()), name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	return nil
}

// RemoveAll removes the name in dir and, when it is a directory, what it holds, following no
// link (a link is removed). A missing name is no error.
func RemoveAll(dir *os.File, name string) error {
	err := unix.Unlinkat(int(dir.Fd()), name, 0)
	if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EPERM) {
		var sub *os.File
		if sub, err = OpenFile(dir, name, unix.O_RDONLY|unix.O_DIRECTORY, 0); err == nil {
			names, _ := sub.Readdirnames(-1)
			for _, n := range names {
				if err == nil {
					err = RemoveAll(sub, n)
				}
			}
			sub.Close()
			if err == nil {
				err = unix.Unlinkat(int(dir.Fd()), name, unix.AT_REMOVEDIR)
			}
		}
	}
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if _, ok := err.(*fs.PathError); ok {
		return err
	}
	return &fs.PathError{Op: "remove", Path: filepath.Join(dir.Name(), name), Err: err}
}

// Link makes the hard link to in toDir to the file from in fromDir (a link at from is
// linked itself, not followed).
func Link(fromDir *os.File, from string, toDir *os.File, to string) error {
	if err := unix.Linkat(int(fromDir.Fd()), from, int(toDir.Fd()), to, 0); err != nil {
		return &os.LinkError{Op: "link", Old: filepath.Join(fromDir.Name(), from), New: filepath.Join(toDir.Name(), to), Err: err}
	}
	return nil
}

// Mkdir makes the directory name in dir.
func Mkdir(dir *os.File, name string, perm fs.FileMode) error {
	if err := unix.Mkdirat(int(dir.Fd()), name, uint32(perm.Perm())); err != nil {
		return &fs.PathError{Op: "mkdir", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	return nil
}

// openPath opens the directory at path as os.Open does, but for a FIFO in its place: that
// is opened without waiting for a writer (and is no directory to read).
func openPath(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
}

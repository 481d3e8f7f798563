//go:build !unix

package beneath

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Without openat the path is opened by name: kimi-run's sandbox, and the commands that could
// plant a link for it, exist on Linux only.
func open(root, rel string, create bool, perm fs.FileMode) (*os.File, error) {
	path := filepath.Join(root, rel)
	if create {
		if err := os.MkdirAll(path, perm); err != nil {
			return nil, err
		}
	}
	return os.Open(path)
}

// heldFD is the held root itself: without openat its path is all a call uses.
type heldFD = *os.File

func dupHeld(f *os.File) (*os.File, error) { return f, nil }

// openHeld opens rel below the held root by path.
func openHeld(root *os.File, path, rel string, create bool, perm fs.FileMode) (*os.File, error) {
	return open(root.Name(), rel, create, perm)
}

// RemoveAll removes the name in dir and what it holds.
func RemoveAll(dir *os.File, name string) error { return os.RemoveAll(filepath.Join(dir.Name(), name)) }

// OpenFile opens the file name in dir.
func OpenFile(dir *os.File, name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir.Name(), name), flag, perm)
}

// Remove removes the name in dir.
func Remove(dir *os.File, name string) error { return os.Remove(filepath.Join(dir.Name(), name)) }

// Link makes the hard link to in toDir to the file from in fromDir.
func Link(fromDir *os.File, from string, toDir *os.File, to string) error {
	return os.Link(filepath.Join(fromDir.Name(), from), filepath.Join(toDir.Name(), to))
}

// Mkdir makes the directory name in dir.
func Mkdir(dir *os.File, name string, perm fs.FileMode) error {
	return os.Mkdir(filepath.Join(dir.Name(), name), perm)
}

// openPath opens the directory at path.
func openPath(path string) (*os.File, error) { return os.Open(path) }

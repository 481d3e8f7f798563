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

// OpenFile opens the file name in dir.
func OpenFile(dir *os.File, name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir.Name(), name), flag, perm)
}

// Remove removes the name in dir.
func Remove(dir *os.File, name string) error { return os.Remove(filepath.Join(dir.Name(), name)) }

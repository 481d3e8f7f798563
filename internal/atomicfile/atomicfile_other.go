//go:build !unix

package atomicfile

import (
	"os"
	"path/filepath"
)

// createTemp creates a new hidden file for name in dir. Without a sandbox on these systems
// the directory's path is used.
func createTemp(dir *os.File, name string) (*os.File, string, error) {
	f, err := os.CreateTemp(dir.Name(), "."+name+".*.tmp")
	if err != nil {
		return nil, "", err
	}
	return f, filepath.Base(f.Name()), nil
}

func rename(dir *os.File, from, to string) error {
	return os.Rename(filepath.Join(dir.Name(), from), filepath.Join(dir.Name(), to))
}

func remove(dir *os.File, name string) { os.Remove(filepath.Join(dir.Name(), name)) }

// syncDir does nothing: Windows cannot sync a directory handle. There the rename is as
// durable as the file system's metadata journal makes it.
func syncDir(*os.File) {}

//go:build !unix

package tools

import (
	"io/fs"
	"os"
	"path/filepath"
)

// appendIn appends data to the file name in dir and returns its new size. There is no
// sandbox on Windows, so the path is used as it is.
func appendIn(dir *os.File, name string, data []byte, _ bool) (int64, error) {
	f, err := os.OpenFile(filepath.Join(dir.Name(), name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, newFileMode)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return 0, err
	}
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return info.Size(), f.Close()
}

// writeAtomicIn replaces the file name in dir with data through a temporary file renamed
// over it.
func writeAtomicIn(dir *os.File, name string, data []byte, perm fs.FileMode) (err error) {
	tmp, err := os.CreateTemp(dir.Name(), "."+name+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir.Name(), name))
}

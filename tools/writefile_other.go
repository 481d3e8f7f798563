//go:build !unix

package tools

import (
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

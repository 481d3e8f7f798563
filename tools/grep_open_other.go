//go:build !linux && !darwin

package tools

import (
	"io"
	"os"
)

// openGrepFile opens a file for searching.
func openGrepFile(path string) (io.ReadCloser, error) { return os.Open(path) }

//go:build !linux && !darwin

package search

import (
	"io"
	"os"
)

// openFile opens a file for searching.
func openFile(path string) (io.ReadCloser, error) { return os.Open(path) }

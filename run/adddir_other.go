//go:build !unix

package run

import (
	"os"
	"path/filepath"
)

// mkdirChain makes the directories names below base. Without openat the names are made
// by path; the sandbox, the reason for the care taken on Unix, exists on Linux only.
func mkdirChain(base string, names []string) error {
	return os.MkdirAll(filepath.Join(append([]string{base}, names...)...), 0o755)
}

//go:build unix

package runplan

import "golang.org/x/sys/unix"

// writableBy reports whether this process may write path (a directory: create in it).
func writableBy(path string) bool {
	return unix.Access(path, unix.W_OK) == nil
}

//go:build unix && !linux

package beneath

import "golang.org/x/sys/unix"

// openat2Dir: there is no openat2 here; open walks the path.
func openat2Dir(int, string) (int, error) { return -1, unix.ENOSYS }

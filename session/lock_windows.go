//go:build windows

package session

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffset places the locked byte range past the pid the file holds: Windows locks are
// mandatory, and the next run reads that pid for its message.
const lockOffset = 1 << 20

// tryLock takes an exclusive (or shared) lock on f without waiting; errLocked when another
// holds it in a way that excludes this one.
func tryLock(f *os.File, shared bool) error {
	ol := &windows.Overlapped{Offset: lockOffset}
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if !shared {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errLocked
	}
	return err
}

func unlock(f *os.File) error {
	ol := &windows.Overlapped{Offset: lockOffset}
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
}

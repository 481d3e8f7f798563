//go:build unix && !linux

package launch

import "syscall"

// localAttr is a new session (this system has no parent-death signal).
func localAttr(bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

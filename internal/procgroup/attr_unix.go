//go:build unix && !linux

package procgroup

import "syscall"

// attr is a new session (this system has no parent-death signal).
func attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

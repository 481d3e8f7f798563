//go:build unix && !linux

package procgroup

import "syscall"

// Attr returns the attributes of a child process: a new session (this system has no
// parent-death signal).
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

package procgroup

import "syscall"

// Attr returns the attributes of a child process: a new session, and SIGKILL when
// kimi-run dies.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

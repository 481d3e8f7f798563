package procgroup

import "syscall"

// attr is a new session, and SIGKILL when kimi-run dies.
func attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

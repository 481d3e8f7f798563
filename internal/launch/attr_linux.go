package launch

import "syscall"

// localAttr is a new session, and SIGKILL when kimi-run dies.
func localAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

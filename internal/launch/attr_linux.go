package launch

import "syscall"

// localAttr is a new session, and SIGKILL when kimi-run dies unless the child is to
// survive the run (Spec.Survive).
func localAttr(survive bool) *syscall.SysProcAttr {
	if survive {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

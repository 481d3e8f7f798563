//go:build windows

package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// attr makes the child the leader of a new process group.
func attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// Signal ends the process tree rooted at p. Windows has no polite termination signal for
// console programs, so both steps end the tree at once. Once p has been waited for, its
// number may belong to another process, and nothing is done.
func Signal(p *os.Process, _ bool) error {
	// Signal 0 is not sent on Windows; it only tells a process waited for (ErrProcessDone).
	if err := p.Signal(syscall.Signal(0)); errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(p.Pid)).Run()
}

// Alive is false: Windows has no groups to look into once the leader exited, and Signal
// has ended the tree at once.
func Alive(*os.Process) bool { return false }

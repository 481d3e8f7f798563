//go:build windows

package launch

import (
	"os/exec"
	"strconv"
	"syscall"
)

// localAttr makes the child the leader of a new process group.
func localAttr(bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// signalGroup ends the process tree rooted at pid. Windows has no polite termination
// signal for console programs, so both steps end the tree at once. Proc.Signal calls it
// only while the child has not been waited for: after that its number may belong to
// another process.
func signalGroup(pid int, _ uint64, _ bool) error {
	return exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run()
}

// groupAlive is false: Windows has no groups to look into once the leader exited, and
// signalGroup has ended the tree at once.
func groupAlive(int, uint64) bool { return false }

// groupsOutliveLeader is false: once the child was waited for, its number may be another
// process's.
const groupsOutliveLeader = false

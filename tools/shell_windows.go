//go:build windows

package tools

import (
	"os/exec"
	"strconv"
	"syscall"
)

// isolate starts cmd in its own process group so the tree can be ended together.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// signalGroup ends the process tree rooted at pid. Windows has no polite termination
// signal for console programs, so both steps end the tree at once.
func signalGroup(pid int, _ bool) error {
	return exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run()
}

// groupAlive is always false on Windows: taskkill /T has already ended the tree.
func groupAlive(int) bool { return false }

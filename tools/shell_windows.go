//go:build windows

package tools

import (
	"os/exec"
	"strconv"
	"sync"
	"syscall"
)

// shellPath is bash when one is on PATH (Git for Windows, MSYS2), so commands written
// for bash keep working; otherwise PowerShell.
var shellPath = sync.OnceValue(func() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "powershell.exe"
})

// shellCommand returns the program and arguments that run command in the shell.
func shellCommand(command string) (string, []string) {
	p := shellPath()
	if p == "powershell.exe" {
		return p, []string{"-NoProfile", "-NonInteractive", "-Command", command}
	}
	return p, []string{"-c", command}
}

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

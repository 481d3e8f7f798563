//go:build unix

package hooks

import (
	"errors"
	"os/exec"
	"syscall"

	"github.com/kimi-run/kimi-run/internal/procgroup"
)

// shellCommand runs command with /bin/sh, as Kimi CLI does.
func shellCommand(command string) (string, []string) {
	return "/bin/sh", []string{"-c", command}
}

// isolate starts cmd in a session of its own, which is also a process group, so that the
// whole group can be killed and nothing in it can stop to read the terminal.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = procgroup.Attr()
}

// killGroup kills the process group cmd leads.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

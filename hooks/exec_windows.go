//go:build windows

package hooks

import "os/exec"

func shellCommand(command string) (string, []string) {
	return "cmd", []string{"/C", command}
}

func isolate(*exec.Cmd) {}

// killGroup kills the command's process (Windows has no process groups to signal).
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

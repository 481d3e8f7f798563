//go:build unix

package mcp

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/kimi-run/kimi-run/internal/procgroup"
)

// isolate starts cmd in a new session, which is also a new process group: the group can be
// signalled as a whole, a terminal's Ctrl-C does not reach the server before kimi-run has
// decided how to stop it, and nothing in it can open /dev/tty to prompt.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = procgroup.Attr()
}

// signalGroup sends SIGTERM, or SIGKILL when kill is set, to the process group led by p.
// A group that is already gone is fine.
func signalGroup(p *os.Process, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-p.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		p.Signal(sig)
	}
}

// waitGroupGone waits up to d for the group led by p to have no process left, so that a
// caller may rely on SIGKILL having taken effect. A zombie not yet reaped still counts.
func waitGroupGone(p *os.Process, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(-p.Pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

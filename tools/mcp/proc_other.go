//go:build !unix

package mcp

import (
	"os"
	"os/exec"
	"time"
)

// isolate does nothing where there are no process groups.
func isolate(*exec.Cmd) {}

// signalGroup ends the server process itself: without process groups, a grandchild it
// started may survive. There is no SIGTERM here, so both steps kill.
func signalGroup(p *os.Process, _ bool) {
	p.Kill()
}

// waitGroupGone has no group to wait for: the process itself is waited for by the caller.
func waitGroupGone(*os.Process, time.Duration) {}

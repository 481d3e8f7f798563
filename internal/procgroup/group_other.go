//go:build !unix && !windows

package procgroup

import (
	"errors"
	"os"
	"syscall"
)

// attr is nil: this system has no process groups.
func attr() *syscall.SysProcAttr { return nil }

// Signal kills p itself: without groups, what it started is out of reach.
func Signal(p *os.Process, _ bool) error {
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

// Alive is false: there is no group to look into.
func Alive(*os.Process) bool { return false }

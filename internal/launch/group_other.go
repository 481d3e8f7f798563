//go:build !unix && !windows

package launch

import (
	"errors"
	"os"
	"syscall"
)

// localAttr is nil: this system has no process groups.
func localAttr(bool) *syscall.SysProcAttr { return nil }

// signalGroup kills the process itself: without groups, what it started is out of reach.
func signalGroup(pid int, _ uint64, _ bool) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

// groupAlive is false: there is no group to look into.
func groupAlive(int, uint64) bool { return false }

// groupsOutliveLeader is false: once the child was waited for, its number may be another
// process's.
const groupsOutliveLeader = false

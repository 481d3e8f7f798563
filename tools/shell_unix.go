//go:build unix

package tools

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/kimi-run/kimi-run/internal/procgroup"
)

// isolate starts cmd in a new session, which is also a new process group (and on Linux
// dies with kimi-run; see procgroup): the whole
// group can be signalled at once, and with no controlling terminal nothing in it can
// stop to prompt on /dev/tty.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = procgroup.Attr()
}

// signalGroup sends SIGTERM (or SIGKILL when kill is set) to the process group led by
// pid. A group that is already gone is not an error.
func signalGroup(pid int, kill bool) error {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// groupAlive reports whether any process of the group led by pid is still running.
func groupAlive(pid int) bool {
	if err := syscall.Kill(-pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// kill also finds zombies, which pile up where init does not reap orphans (many
	// containers); where /proc is readable, look for a member that still runs.
	if alive, known := liveMember(pid); known {
		return alive
	}
	return true
}

// liveMember scans /proc for a process of group pgid that is not a zombie. known is
// false when /proc cannot be read (not Linux).
func liveMember(pgid int) (alive, known bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false, false
	}
	want := strconv.Itoa(pgid)
	for _, e := range entries {
		name := e.Name()
		if name == "" || name[0] < '0' || name[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // it exited meanwhile
		}
		// After the parenthesised command name: state, ppid, pgrp, ...
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) >= 3 && f[2] == want && f[0] != "Z" && f[0] != "X" {
			return true, true
		}
	}
	return false, true
}

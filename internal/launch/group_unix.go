//go:build unix

package launch

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// signalGroup sends SIGTERM, or SIGKILL when kill is set, to the group led by pid, a
// child started by bound (see StartedBy). A group that has ended already is not an error,
// and neither is one whose number now leads someone else's process: that is not signalled.
func signalGroup(pid int, bound uint64, kill bool) error {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if reused(pid, bound) {
		return nil
	}
	err := syscall.Kill(-pid, sig)
	if err == nil || errors.Is(err, syscall.ESRCH) {
		return nil
	}
	if syscall.Kill(pid, sig) == nil { // the group is out of reach; the leader at least
		return nil
	}
	return err
}

// groupAlive reports whether any member of the group led by pid, a child started by
// bound, still runs (the leader may have exited and left others behind). Zombies do not
// run, and a group whose number now leads a process started later is someone else's.
func groupAlive(pid int, bound uint64) bool {
	if reused(pid, bound) {
		return false
	}
	if err := syscall.Kill(-pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// kill finds zombies too; where /proc is readable, look for a member that runs.
	if running, known := runningMember(pid); known {
		return running
	}
	return true // no /proc (macOS): a zombie cannot be told apart
}

// runningMember scans /proc for a process of group pgid that is not a zombie. known is
// false when /proc cannot be read (not Linux).
func runningMember(pgid int) (running, known bool) {
	return findMember(pgid, func(f []string) bool { return f[0] != "Z" && f[0] != "X" })
}

// findMember scans /proc for a process of group pgid whose stat fields after the
// parenthesised command name (state, ppid, pgrp, ...) satisfy match. known is false when
// /proc cannot be read (not Linux).
func findMember(pgid int, match func(f []string) bool) (found, known bool) {
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
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) >= 3 && f[2] == want && match(f) {
			return true, true
		}
	}
	return false, true
}

// groupsOutliveLeader: a group can be signalled after its leader exited.
const groupsOutliveLeader = true

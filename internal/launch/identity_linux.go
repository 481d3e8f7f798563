package launch

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ticksPerSecond is the unit of a process's start time in /proc/PID/stat (USER_HZ, 100 on
// every Linux architecture Go supports).
const ticksPerSecond = 100

// StartedBy is a bound on the start time of a process that exists now: the time since
// boot, in /proc's clock ticks, rounded up. A process whose start time is later was
// started after this moment.
func StartedBy() uint64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return 0
	}
	ns := uint64(ts.Sec)*1e9 + uint64(ts.Nsec)
	return ns/(1e9/ticksPerSecond) + 1
}

// reused reports whether pid is now the number of a process started after bound, so not
// the child that had it when bound was taken: the kernel gives a number out again once
// the process and every group and session it named are gone, and on a busy machine with
// the default pid_max (32768) that takes seconds. A bound of 0 (unknown) never says so.
func reused(pid int, bound uint64) bool {
	if bound == 0 {
		return false
	}
	start, ok := startTime(pid)
	return ok && start > bound
}

// startTime is when process pid started, in clock ticks since boot, read from
// /proc/PID/stat (its 22nd field); ok is false when there is no such process.
func startTime(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	// After the name: state (field 3), ... starttime (field 22).
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	return n, err == nil
}

// OlderMember reports whether a process of group pgid started before since (clock ticks
// since boot, see StartedBy); a since of 0 (unknown) finds none. It reads every process's
// stat, so it is only asked about a child that ended before kimi-run looked.
func OlderMember(pgid int, since uint64) bool {
	if since == 0 {
		return false
	}
	// A quick command that ended alone leaves no group at all: nothing in it can be older,
	// and the scan, 4 ms for 140 processes here (more on a CI host), is not paid by every
	// fast confined call.
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	older, _ := findMember(pgid, func(f []string) bool {
		if len(f) < 20 {
			return false
		}
		start, err := strconv.ParseUint(f[19], 10, 64) // starttime, the 20th after the name
		return err == nil && start < since
	})
	return older
}

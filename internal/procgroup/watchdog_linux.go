package procgroup

import (
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

const supported = true

// watchdogAttr puts the watchdog in a session of its own, without a parent-death signal:
// it must outlive kimi-run to do its work, and no group kill aimed at kimi-run's children
// reaches it.
func watchdogAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// ignoreSignals keeps the watchdog alive through the signals that stop kimi-run: it ends
// when its stdin does.
func ignoreSignals() { signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE) }

func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

// startTime is the start time of process pid (field 22 of /proc/PID/stat, in clock ticks
// since boot), which tells a process from a later one that got the same number.
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
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, false
	}
	t, err := strconv.ParseUint(f[19], 10, 64)
	return t, err == nil
}

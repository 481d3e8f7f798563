//go:build unix

package testkit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ProcessGone reports whether pid runs no more: there is no such process, or it is a
// zombie (or dead) that its parent has not reaped yet, which runs nothing either. A process
// that exists but belongs to someone else (EPERM) still runs. Where there is no /proc
// (macOS), a zombie cannot be told apart and counts as running.
func ProcessGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		// The process may have been reaped between the two looks.
		_, statErr := os.Stat("/proc/self/stat")
		return errors.Is(err, fs.ErrNotExist) && statErr == nil
	}
	// The state follows the command name, which is in parentheses and may hold spaces.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	state := s[i+2]
	return state == 'Z' || state == 'X'
}

// WaitGone fails the test unless process pid is gone (see ProcessGone) within a generous
// bound: a kill is delivered asynchronously, so this waits for the condition rather than
// looking once. A process still there at the end is killed so it outlives no test run.
func WaitGone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ProcessGone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d is still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ReadPID reads the process id a test command wrote to path.
func ReadPID(t testing.TB, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the command did not record its process id: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		t.Fatalf("%s holds %q, not a process id", path, data)
	}
	return pid
}

// Started is when process pid started, in clock ticks since boot (from /proc/PID/stat),
// or 0 when that cannot be read: take it while the process surely runs, for Kill.
func Started(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if err != nil || i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}

// Kill sends SIGKILL to process pid, and to its group as well with group set, unless the
// number now belongs to a process started at another time than start (see Started). A
// test's cleanup runs long after the process may have ended, and on a busy machine its
// number is soon another's: a parallel test's process, which a blind kill would end.
func Kill(pid int, start uint64, group bool) {
	if now := Started(pid); start != 0 && now != 0 && now != start {
		return
	}
	if group {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

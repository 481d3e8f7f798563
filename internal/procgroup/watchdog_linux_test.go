package procgroup

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startGroup starts a sleeper in a process group of its own and returns its pid.
func startGroup(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// One Wait only (a second is a data race): it reaps the sleeper as soon as it is
	// killed, so a killed sleeper does not linger as a zombie, and cleanup waits for it.
	reaped := make(chan struct{})
	go func() { cmd.Wait(); close(reaped) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-reaped })
	return cmd.Process.Pid
}

// running reports whether process pid exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// gone waits (bounded) for process pid to stop running: a kill is asynchronous.
func gone(pid int) bool {
	for range 500 {
		if !running(pid) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func TestWatchdog(t *testing.T) {
	killed, kept, bye, reused := startGroup(t), startGroup(t), startGroup(t), startGroup(t)
	line := func(pid int) string {
		st, ok := startTime(pid)
		if !ok {
			t.Fatalf("no start time for %d", pid)
		}
		return fmt.Sprintf("+%d %d\n", pid, st)
	}
	// kimi-run died: listed groups are killed, removed ones and a reused number are not.
	Watchdog(strings.NewReader(line(killed) + line(kept) + fmt.Sprintf("-%d\n", kept) + fmt.Sprintf("+%d 1\n", reused)))
	// kimi-run ended the orderly way: nothing is killed.
	Watchdog(strings.NewReader(line(bye) + "bye\n"))
	if !gone(killed) {
		t.Errorf("the listed group survived the watchdog")
	}
	for _, pid := range []int{kept, bye, reused} {
		if !running(pid) {
			t.Errorf("group %d was killed", pid)
		}
	}
}

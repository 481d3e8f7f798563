//go:build unix

package testkit

import (
	"os/exec"
	"runtime"
	"testing"
)

func TestProcessGone(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep command: %v", err)
	}
	pid := cmd.Process.Pid
	if ProcessGone(pid) {
		t.Fatal("a running process counts as gone")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Not reaped yet: a zombie, which runs nothing. Only /proc can tell.
	if runtime.GOOS == "linux" {
		WaitGone(t, pid)
	}
	cmd.Wait()
	WaitGone(t, pid)
}

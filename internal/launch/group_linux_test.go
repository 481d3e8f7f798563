package launch

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// startUnwaited starts sh -c script as a group leader and does not wait for it, so that
// when it exits it stays a zombie until the test reaps it (at cleanup, after killing what
// is left of its group). The Proc it returns has not exited as far as it knows.
func startUnwaited(t *testing.T, script string) *Proc {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = localAttr(false)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := NewProc(cmd.Process.Pid)
	t.Cleanup(func() {
		_ = p.Signal(true)
		_ = cmd.Wait()
	})
	return p
}

// zombie waits (bounded) until process pid has exited and is not yet reaped.
func zombie(t *testing.T, pid int) {
	t.Helper()
	for range 1000 {
		if st := state(pid); st == "Z" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d did not become a zombie (state %q)", pid, state(pid))
}

// TestZombiesHaveEnded is the one answer Shell, MCP servers and hooks share (they all ask
// Alive, WaitGone or Stop): a group whose members are all zombies has ended, one with a
// running member has not, whether or not its leader is a zombie.
func TestZombiesHaveEnded(t *testing.T) {
	tests := []struct {
		name      string
		script    string
		leaderZ   bool // wait for the leader to be a zombie first
		wantAlive bool
	}{
		{"running leader", "exec sleep 300", false, true},
		{"zombie leader alone", "exit 0", true, false},
		{"zombie leader, running member", "sleep 300 & exit 0", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startUnwaited(t, tt.script)
			if tt.leaderZ {
				zombie(t, p.Pid)
			}
			if got := p.Alive(); got != tt.wantAlive {
				t.Errorf("Alive = %v, want %v", got, tt.wantAlive)
			}
			// A deadline already passed: WaitGone looks once.
			if gone := WaitGone(time.Now(), p); gone == tt.wantAlive {
				t.Errorf("WaitGone = %v, want %v", gone, !tt.wantAlive)
			}
			if !tt.wantAlive {
				if n := Stop(time.Minute, time.Minute, p); n != 0 {
					t.Errorf("Stop found %d running groups in a group of zombies", n)
				}
			}
		})
	}
}

// TestStopEndsAGroupWhoseLeaderExited: the leader is a zombie, a member ignores SIGTERM;
// Stop counts the group, and SIGKILL after the grace ends it.
func TestStopEndsAGroupWhoseLeaderExited(t *testing.T) {
	p := startUnwaited(t, "(trap '' TERM; sleep 300) & exit 0")
	zombie(t, p.Pid)
	if n := Stop(100*time.Millisecond, 5*time.Second, p); n != 1 {
		t.Errorf("Stop found %d running groups, want 1", n)
	}
	if p.Alive() {
		t.Error("the group still runs after Stop")
	}
}

// state is the state letter of process pid from /proc ("" when there is none).
func state(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ')' && i+2 < len(b) {
			return string(b[i+2])
		}
	}
	return ""
}

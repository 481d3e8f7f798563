package tools

import (
	"os/exec"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/procgroup"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestShellGroupsEndSkipsZombies: a command whose group holds only a zombie (it exited
// and nobody reaped it, as happens where init does not reap orphans) has nothing left
// running, so the run's end counts no group for it and warns about none, as MCP servers
// and hooks see it too (procgroup.Alive).
func TestShellGroupsEndSkipsZombies(t *testing.T) {
	cmd := exec.Command("sh", "-c", "exit 0")
	if err := procgroup.Start(cmd, nil); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	// Not yet waited for: once it has exited, the leader is a zombie (ProcessGone says so).
	for i := 0; !testkit.ProcessGone(cmd.Process.Pid); i++ {
		if i == 1000 {
			t.Fatal("sh -c 'exit 0' did not exit")
		}
		time.Sleep(10 * time.Millisecond)
	}
	groups := &ShellGroups{}
	groups.add(cmd.Process)
	if n := groups.End(time.Minute); n != 0 {
		t.Errorf("End found %d running groups in a group of one zombie", n)
	}
}

package launch

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

// A group's number is given out again once the group is gone; with the default pid_max
// (32768) a busy CI machine wraps around in seconds. A Proc whose child had the number
// before must neither see the new holder as its group nor signal it: that would stop
// another program's process (seen: a parallel run's SIGTERM ending a background task kept
// alive, TestBackgroundKeepAliveOnExit on CI).
func TestANumberGivenAgainIsNotSignalled(t *testing.T) {
	before := StartedBy()
	if before == 0 {
		t.Skip("no CLOCK_BOOTTIME")
	}
	time.Sleep(3 * time.Second / ticksPerSecond) // so the next start is in a later tick
	holder := startUnwaited(t, "exec sleep 300")
	if start, ok := startTime(holder.Pid); !ok || start <= before {
		t.Fatalf("start time %d (%v), want after %d", start, ok, before)
	}
	// The child that had the number before: started by then, exited and reaped since.
	stale := &Proc{Pid: holder.Pid, bound: before, done: make(chan struct{})}
	stale.Finish(State{})
	if stale.Alive() {
		t.Error("the new holder's group counts as the old child's")
	}
	for _, kill := range []bool{false, true} {
		if err := stale.Signal(kill); err != nil {
			t.Error(err)
		}
	}
	if n := Stop(0, time.Second, stale); n != 0 {
		t.Errorf("Stop found %d groups running", n)
	}
	if testkit.ProcessGone(holder.Pid) || state(holder.Pid) == "T" {
		t.Fatal("a signal meant for the old child reached the new holder of its number")
	}
	// Its own Proc still ends it.
	if !holder.Alive() {
		t.Error("the holder's own Proc sees no group")
	}
	holder.Signal(true)
	testkit.WaitGone(t, holder.Pid)
}

// Without a launcher process, a child started to survive the run (a background task kept
// alive) gets no parent-death signal: it outlives the process that started it.
func TestASurvivorStartedLocallyOutlivesItsStarter(t *testing.T) {
	if os.Getenv("KIMI_RUN_LAUNCH_TEST_STARTER") == "1" {
		p, err := (&Launcher{}).Start(Spec{Path: "/bin/sleep", Args: []string{"sleep", "300"}, Survive: true})
		if err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString(strconv.Itoa(p.Pid) + "\n")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestASurvivorStartedLocallyOutlivesItsStarter$")
	cmd.Env = append(os.Environ(), "KIMI_RUN_LAUNCH_TEST_STARTER=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the starter: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("the starter wrote %q", out)
	}
	start, _ := startTime(pid)
	t.Cleanup(func() { (&Proc{Pid: pid, bound: start, done: make(chan struct{})}).Signal(true) })
	time.Sleep(100 * time.Millisecond) // a parent-death signal is delivered at once
	if testkit.ProcessGone(pid) {
		t.Fatal("the task kept alive died with the process that started it")
	}
}

// OlderMember is what keeps a confined arm in a command's hands from naming a group outside
// (TestEscapeThroughTheArmsSocket): asked about a child that ended before kimi-run looked,
// it finds a member of the named group that started before the start was asked for. A
// group with no member left is the common case: a quick command that ended alone.
func TestOlderMember(t *testing.T) {
	if StartedBy() == 0 {
		t.Skip("no CLOCK_BOOTTIME")
	}
	tick := 3 * time.Second / ticksPerSecond // so that two moments fall in different ticks
	// group starts sh leading a group of its own that leaves `sleep` running in it, and
	// returns the group once sh has ended (and been reaped).
	group := func(t *testing.T) int {
		cmd := exec.Command("sh", "-c", "sleep 300 >/dev/null 2>&1 & echo $!")
		cmd.SysProcAttr = localAttr(false)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		member, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatalf("sh wrote %q", out)
		}
		start, _ := startTime(member)
		t.Cleanup(func() { (&Proc{Pid: member, bound: start, done: make(chan struct{})}).Signal(true) })
		return cmd.Process.Pid
	}
	t.Run("no group left", func(t *testing.T) {
		cmd := exec.Command("true")
		cmd.SysProcAttr = localAttr(false)
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(tick)
		if OlderMember(cmd.Process.Pid, StartedBy()) {
			t.Error("a group with no member has an older one")
		}
	})
	t.Run("a member older than the start", func(t *testing.T) {
		pgid := group(t)
		time.Sleep(tick)
		if !OlderMember(pgid, StartedBy()) {
			t.Error("the member that ran before the start was not found")
		}
	})
	t.Run("members younger than the start", func(t *testing.T) {
		since := StartedBy()
		time.Sleep(tick)
		if pgid := group(t); OlderMember(pgid, since) {
			t.Error("a member started after the start counts as older")
		}
	})
}

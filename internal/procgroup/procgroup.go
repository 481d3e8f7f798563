// Package procgroup starts, watches and ends the process groups of every child kimi-run
// starts: Shell commands, hook commands and MCP servers all go through it, so they agree on
// how a group is signalled and on when it counts as ended.
//
// Each child starts a session of its own, which is also a process group, so the whole group
// can be signalled at once and nothing in it can stop to read a terminal. On Linux each also
// gets a parent-death signal, SIGKILL: when kimi-run dies, even by SIGKILL, the child it
// started dies with it. On Windows each child leads a new process group, and ending it ends
// its process tree (taskkill /T) while the child itself has not been waited for.
//
// A group has ended when none of its members runs: a zombie (a process that exited and
// that its parent has not reaped yet) runs nothing, so a group of zombies has ended. Where
// init does not reap orphans (many containers), such zombies stay for good.
//
// The kernel sends the parent-death signal when the thread that started the child ends,
// not the process. The Go runtime ends a thread only when a goroutine that locked it
// (runtime.LockOSThread) returns without unlocking it; kimi-run's own process never does
// that, so the thread that started a child lives as long as kimi-run.
package procgroup

import (
	"os"
	"os/exec"
	"time"
)

// pollEvery is how often a wait for groups to end looks again.
const pollEvery = 10 * time.Millisecond

// Isolate makes cmd, once started, the leader of a new group (see the package comment).
// It replaces cmd.SysProcAttr.
func Isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = attr()
}

// Start starts cmd as the leader of a new group (Isolate) and lists the group with watch,
// the run's watchdog (nil: none).
func Start(cmd *exec.Cmd, watch *Watcher) error {
	Isolate(cmd)
	// The watchdog is up, and the child waits at its gate, until the group is listed:
	// otherwise a SIGKILL of kimi-run in between leaves the group unknown to the watchdog.
	open := watch.gate(cmd)
	if err := cmd.Start(); err != nil {
		open(false)
		return err
	}
	watch.Add(cmd.Process.Pid)
	open(true)
	return nil
}

// WaitGone waits until none of the groups led by ps has a running member, or until
// deadline, and reports whether they have all ended.
func WaitGone(deadline time.Time, ps ...*os.Process) bool {
	for {
		alive := false
		for _, p := range ps {
			if Alive(p) {
				alive = true
				break
			}
		}
		if !alive {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
}

// Stop ends the groups led by ps that still have a running member: SIGTERM, SIGKILL to
// what is left after grace, then a wait of up to killWait for them to go. It returns how
// many groups it found running. A process that left its group (setsid, a double-forking
// daemon) is out of reach.
func Stop(grace, killWait time.Duration, ps ...*os.Process) int {
	var live []*os.Process
	for _, p := range ps {
		if Alive(p) {
			live = append(live, p)
			_ = Signal(p, false)
		}
	}
	if len(live) == 0 {
		return 0
	}
	WaitGone(time.Now().Add(grace), live...)
	for _, p := range live {
		if Alive(p) {
			_ = Signal(p, true)
		}
	}
	WaitGone(time.Now().Add(killWait), live...)
	return len(live)
}

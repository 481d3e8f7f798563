package tools

import (
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/internal/procgroup"
)

// ShellGroups records the process group of every Shell call, so that what a command left
// running in the background (a server started with &, a watcher) can be ended when the run
// ends rather than outlive it. It is safe for concurrent use. Groups are a Unix notion: on
// Windows, End finds nothing to end.
type ShellGroups struct {
	// Watch, when set, also lists every group with the run's watchdog, which kills them
	// should kimi-run die without ending them.
	Watch *procgroup.Watcher

	mu   sync.Mutex
	pids []int
}

// add records the group led by pid (each Shell command runs in a group of its own).
func (g *ShellGroups) add(pid int) {
	if g == nil {
		return
	}
	g.Watch.Add(pid)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pids = append(g.pids, pid)
}

// End stops every recorded group that still has a running process: SIGTERM, then SIGKILL
// for what is left after grace. It waits until they are gone (a moment more after SIGKILL)
// and returns how many groups it found running. A process that left its group (setsid, a
// double-forking daemon) is out of reach.
func (g *ShellGroups) End(grace time.Duration) int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	pids := g.pids
	g.pids = nil
	g.mu.Unlock()
	var live []int
	for _, pid := range pids {
		if groupAlive(pid) {
			live = append(live, pid)
			_ = signalGroup(pid, false)
		}
	}
	if len(live) == 0 {
		return 0
	}
	waitGroups(live, time.Now().Add(grace))
	for _, pid := range live {
		if groupAlive(pid) {
			_ = signalGroup(pid, true)
		}
	}
	waitGroups(live, time.Now().Add(time.Second))
	return len(live)
}

// Kill sends SIGKILL to every recorded group at once, without waiting: the last act of a
// run that exits on a second signal, so that no command it started keeps running.
func (g *ShellGroups) Kill() {
	if g == nil {
		return
	}
	g.mu.Lock()
	pids := g.pids
	g.pids = nil
	g.mu.Unlock()
	for _, pid := range pids {
		_ = signalGroup(pid, true)
	}
}

// waitGroups polls until no group of pids has a running process, or until deadline.
func waitGroups(pids []int, deadline time.Time) {
	for time.Now().Before(deadline) {
		alive := false
		for _, pid := range pids {
			if groupAlive(pid) {
				alive = true
				break
			}
		}
		if !alive {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

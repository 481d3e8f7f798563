package tools

import (
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/internal/launch"
)

// ShellGroups records the process group of every Shell call, so that what a command left
// running in the background (a server started with &, a watcher) is asked to stop
// (SIGTERM, then SIGKILL) when the run ends rather than outlive it; the launcher then ends
// whatever left its group. It is safe for concurrent use. Groups are a Unix notion: on
// Windows, End finds nothing to end (see launch).
type ShellGroups struct {
	mu    sync.Mutex
	procs []*launch.Proc
}

// add records the group led by p (each Shell command runs in a group of its own).
func (g *ShellGroups) add(p *launch.Proc) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.procs = append(g.procs, p)
}

// take returns the recorded groups and forgets them.
func (g *ShellGroups) take() []*launch.Proc {
	g.mu.Lock()
	defer g.mu.Unlock()
	procs := g.procs
	g.procs = nil
	return procs
}

// End stops every recorded group that still has a running process: SIGTERM, then SIGKILL
// for what is left after grace. It waits until they are gone (a moment more after SIGKILL)
// and returns how many groups it found running (see launch.Stop).
func (g *ShellGroups) End(grace time.Duration) int {
	if g == nil {
		return 0
	}
	return launch.Stop(grace, time.Second, g.take()...)
}

// Kill sends SIGKILL to every recorded group at once, without waiting: the last act of a
// run that exits on a second signal, so that no command it started keeps running.
func (g *ShellGroups) Kill() {
	if g == nil {
		return
	}
	for _, p := range g.take() {
		_ = p.Signal(true)
	}
}

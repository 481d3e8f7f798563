package tools

import (
	"fmt"
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

// End stops every recorded group that still has a running process, so that a finished CI
// step leaves no server or watcher behind: SIGTERM, then SIGKILL for what is left after
// grace. It waits until they are gone (a moment more after SIGKILL) and warns how many it
// found running (see launch.Stop).
func (g *ShellGroups) End(grace time.Duration, warn func(string)) {
	if g == nil {
		return
	}
	if n := launch.Stop(grace, time.Second, g.take()...); n > 0 {
		cmds := "commands"
		if n == 1 {
			cmds = "command"
		}
		warn(fmt.Sprintf("stopped the processes that %d Shell %s left running in the background (--keep-background keeps them)", n, cmds))
	}
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

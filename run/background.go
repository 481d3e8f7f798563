package run

import (
	"fmt"
	"time"

	"github.com/kimi-run/kimi-run/event"
)

// backgroundGrace is how long background processes get between SIGTERM and SIGKILL when
// the run ends. A stopping run must end within two seconds of SIGINT or SIGTERM.
const backgroundGrace = time.Second

// endBackground stops what the run's Shell commands left running in the background
// (unless --keep-background), so that a finished CI step leaves no server or watcher
// behind. It runs before the result event, on every way a run ends except a second
// signal, which exits at once.
func (r *runState) endBackground() {
	if r.s.Flags.KeepBackground || r.groups == nil {
		return
	}
	if n := r.groups.End(backgroundGrace); n > 0 {
		cmds := "commands"
		if n == 1 {
			cmds = "command"
		}
		r.emit(event.Warning{Message: fmt.Sprintf(
			"stopped the processes that %d Shell %s left running in the background (--keep-background keeps them)", n, cmds)})
	}
}

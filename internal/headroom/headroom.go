// Package headroom checks at a run's start that the machine leaves it the threads and
// processes it needs, so that a machine short of them ends the run with a transient error
// instead of a crash.
package headroom

import "fmt"

// minTasks is how many more threads and processes a run must be able to start: Go's own
// threads, the launcher, commands and MCP servers. Go ends the whole process, with a stack
// dump and no result, when it cannot make a thread, so a machine short of them is found
// at the start instead.
const minTasks = 32

// Error ends a run that started where too few threads or processes are left (a
// pids cgroup near its pids.max, a user near `ulimit -u`): a busy machine, worth a retry
// later (exit 75).
type Error struct {
	what      string
	left, max int
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("too few threads or processes left to run: %s allows %d, and only %d are free (kimi-run needs %d); try again when the machine is less busy, or raise the limit",
		e.what, e.max, e.left, minTasks)
}

package procgroup

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// WatchdogArg is the first argument of kimi-run's watchdog mode (see Watcher).
const WatchdogArg = "__kimi-run-watchdog"

// Watcher keeps a list of the process groups a run started in a watchdog: a small process
// of its own (kimi-run in WatchdogArg mode, in a session of its own) that reads the list on
// its stdin. When kimi-run ends the orderly way it says so (Close) and the watchdog leaves
// the groups alone; when kimi-run dies any other way, even by SIGKILL, the watchdog sees its
// stdin close and kills every group still listed. The parent-death signal reaches a child's
// own process only; the watchdog reaches what that process started in its group.
//
// The watchdog starts with the first group. A nil *Watcher, or one whose watchdog cannot
// start, does nothing: the run goes on as before. Its methods are safe for concurrent use.
type Watcher struct {
	// Exe is the kimi-run executable to start the watchdog with (sandbox.SelfExe).
	Exe string

	mu     sync.Mutex
	w      *os.File
	failed bool
}

// Add lists the group led by pid, which has just been started.
func (wa *Watcher) Add(pid int) {
	if wa == nil {
		return
	}
	start, ok := startTime(pid)
	if !ok {
		return // the leader is gone already
	}
	wa.send(fmt.Sprintf("+%d %d\n", pid, start))
}

// ready starts the watchdog unless it runs already, and reports whether it runs.
func (wa *Watcher) ready() bool {
	if wa == nil {
		return false
	}
	wa.mu.Lock()
	defer wa.mu.Unlock()
	if wa.w == nil && !wa.failed {
		wa.start()
	}
	return wa.w != nil
}

// Remove takes the group led by pid off the list, once it is known to be gone.
func (wa *Watcher) Remove(pid int) {
	if wa != nil {
		wa.send(fmt.Sprintf("-%d\n", pid))
	}
}

// Close tells the watchdog that kimi-run ends the orderly way, having ended (or kept, on
// purpose) its groups, and lets it go.
func (wa *Watcher) Close() {
	if wa == nil {
		return
	}
	wa.mu.Lock()
	defer wa.mu.Unlock()
	if wa.w != nil {
		_, _ = io.WriteString(wa.w, "bye\n")
		wa.w.Close()
		wa.w = nil
	}
	wa.failed = true // no watchdog after Close
}

func (wa *Watcher) send(line string) {
	wa.mu.Lock()
	defer wa.mu.Unlock()
	if wa.w == nil && !wa.failed {
		wa.start()
	}
	if wa.w != nil {
		if _, err := io.WriteString(wa.w, line); err != nil {
			wa.w.Close()
			wa.w, wa.failed = nil, true
		}
	}
}

// start starts the watchdog with a pipe as its stdin, and nothing else: it must not hold
// kimi-run's stdout or stderr open (a pipeline would wait for it).
func (wa *Watcher) start() {
	if wa.Exe == "" || !supported {
		wa.failed = true
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		wa.failed = true
		return
	}
	cmd := exec.Command(wa.Exe, WatchdogArg)
	cmd.Stdin = r
	cmd.SysProcAttr = watchdogAttr()
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		wa.failed = true
		return
	}
	go func() { _ = cmd.Wait() }() // it exits soon after Close, or after kimi-run
	wa.w = w
}

// Watchdog is the watchdog mode: it reads the list from in until EOF, then, unless the
// last line was "bye", kills every group still listed. It returns the exit status.
func Watchdog(in io.Reader) int {
	ignoreSignals()
	groups := map[int]uint64{}
	bye := false
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		bye = line == "bye"
		if len(line) < 2 {
			continue
		}
		f := strings.Fields(line[1:])
		if len(f) == 0 {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil || pid <= 1 {
			continue
		}
		switch line[0] {
		case '+':
			if len(f) == 2 {
				if start, err := strconv.ParseUint(f[1], 10, 64); err == nil {
					groups[pid] = start
				}
			}
		case '-':
			delete(groups, pid)
		}
	}
	if bye {
		return 0
	}
	for pid, start := range groups {
		// A leader that is there with another start time is a new process that got the
		// number again: not ours. A leader that is gone may have left members behind, and
		// the kernel hands out no process id while a group still uses it.
		if now, ok := startTime(pid); ok && now != start {
			continue
		}
		killGroup(pid)
	}
	return 0
}

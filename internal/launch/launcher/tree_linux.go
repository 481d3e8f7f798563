package launcher

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// pollEvery is how often a wait for processes to end looks again.
const pollEvery = 10 * time.Millisecond

// settle waits until done holds or deadline passes, and reports whether it held. What was
// just killed is usually gone within a millisecond, and the end of a run waits for it:
// it looks again after 250 µs, then twice as long each time, up to pollEvery.
func settle(deadline time.Time, done func() bool) bool {
	wait := 250 * time.Microsecond
	for !done() {
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(wait)
		wait = min(2*wait, pollEvery)
	}
	return true
}

// killTree ends every descendant of root but spare and theirs. Each round stops (SIGSTOP)
// what it finds that it has not stopped yet, so nothing it found can fork any more, and
// looks again; once a look finds nothing new, all of them are killed. A fork loop is caught
// this way too: each look finds only what was forked during the previous one.
func killTree(root int, spare map[int]bool) {
	stopped := map[int]bool{}
	for range 1000 {
		fresh := false
		for _, pid := range descendants(root, spare) {
			if !stopped[pid] {
				_ = syscall.Kill(pid, syscall.SIGSTOP)
				stopped[pid], fresh = true, true
			}
		}
		if !fresh {
			break
		}
	}
	for pid := range stopped {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	settle(time.Now().Add(2*time.Second), func() bool { return !anyRunning(descendants(root, spare)) })
}

// descendants lists the processes below root, zombies included, but spare and theirs.
func descendants(root int, spare map[int]bool) []int {
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		kids, ok := children(pid)
		if !ok {
			return scanDescendants(root, spare)
		}
		for _, k := range kids {
			if !spare[k] {
				out = append(out, k)
				queue = append(queue, k)
			}
		}
	}
	return out
}

// children lists the children of pid's threads from /proc/PID/task/TID/children. ok is
// false where the kernel does not offer that file.
func children(pid int) ([]int, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, true // gone meanwhile
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if os.IsNotExist(err) {
			if _, serr := os.Stat(dir + "/" + t.Name()); serr == nil {
				return nil, false // the file is missing, not the task
			}
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out, true
}

// scanDescendants finds root's descendants (but spare and theirs) from every process's
// parent in /proc/*/stat.
func scanDescendants(root int, spare map[int]bool) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, ppid, ok := statOf(pid); ok {
			parent[ppid] = append(parent[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		kids := parent[queue[0]]
		queue = queue[1:]
		for _, k := range kids {
			if !spare[k] {
				out = append(out, k)
				queue = append(queue, k)
			}
		}
	}
	return out
}

// statOf reads a process's state letter and parent from /proc/PID/stat.
func statOf(pid int) (state byte, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	return f[0][0], ppid, err == nil
}

// anyRunning reports whether any of pids exists and is not a zombie.
func anyRunning(pids []int) bool {
	for _, pid := range pids {
		if st, _, ok := statOf(pid); ok && st != 'Z' && st != 'X' {
			return true
		}
	}
	return false
}

package headroom

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Check finds out whether the run can start the threads and processes it needs:
// within every pids cgroup above it (pids.max less pids.current), and, for a user other
// than root, within RLIMIT_NPROC less the user's tasks.
func Check() error {
	if err := cgroupHeadroom(); err != nil {
		return err
	}
	var lim unix.Rlimit
	if os.Geteuid() == 0 || unix.Getrlimit(unix.RLIMIT_NPROC, &lim) != nil || lim.Cur == unix.RLIM_INFINITY || lim.Cur > 1<<20 {
		return nil
	}
	if left := int(lim.Cur) - userTasks(os.Getuid()); left < minTasks {
		return &Error{what: "ulimit -u (RLIMIT_NPROC)", left: max(left, 0), max: int(lim.Cur)}
	}
	return nil
}

// cgroupHeadroom walks the process's pids cgroup (v2, or v1's pids hierarchy) up to its
// root, and fails at the first level whose pids.max leaves less than minTasks free.
func cgroupHeadroom() error {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var roots []string
		switch {
		case parts[0] == "0" && parts[1] == "":
			roots = []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}
		case strings.Contains(","+parts[1]+",", ",pids,"):
			roots = []string{"/sys/fs/cgroup/pids"}
		}
		for _, root := range roots {
			for dir := filepath.Join(root, parts[2]); strings.HasPrefix(dir, root) && dir != root; dir = filepath.Dir(dir) {
				limit, lerr := readInt(filepath.Join(dir, "pids.max"))
				current, cerr := readInt(filepath.Join(dir, "pids.current"))
				if lerr == nil && cerr == nil && limit-current < minTasks {
					return &Error{what: "the pids cgroup " + dir, left: max(limit-current, 0), max: limit}
				}
			}
		}
	}
	return nil
}

// readInt reads a number file of a cgroup ("max" is not a number).
func readInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// userTasks counts the threads of uid's processes, which RLIMIT_NPROC counts.
func userTasks(uid int) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		fi, err := os.Stat(filepath.Join("/proc", e.Name()))
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue
		}
		tasks, _ := os.ReadDir(filepath.Join("/proc", e.Name(), "task"))
		n += max(len(tasks), 1)
	}
	return n
}

package launcher

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroup is the run's cgroup: a cgroup v2 directory below the launcher's own cgroup, so a
// kill of the job's cgroup (a CI runner's, a container's) still reaches everything in it.
// Every child is started in it (CLONE_INTO_CGROUP), and what they start stays in it
// whatever they do; cgroup.kill ends them all at once. Where a pids controller can be had
// — pids.max in that cgroup, or a cgroup v1 pids hierarchy the launcher's serving thread moves
// into — it also bounds the number of tasks. A nil *cgroup does nothing.
type cgroup struct {
	dir string // the v2 directory, "" when none could be made
	v1  string // the v1 pids directory the launcher joined, "" when none

	mu    sync.Mutex
	fd    int // dir, open for CLONE_INTO_CGROUP; -1 once cloning into it failed
	clone bool
}

// namePrefix starts the name of every run's cgroup; the launcher's pid follows.
const namePrefix = "kimi-run-"

// newCgroup makes the run's cgroup, with at most limit tasks when limit > 0. It returns
// nil when no cgroup can be had here (no cgroup v2, no right to make one, a kernel without
// cgroup.kill).
func newCgroup(limit int) *cgroup {
	c := &cgroup{fd: -1}
	mounts := cgroupMounts()
	name := namePrefix + strconv.Itoa(os.Getpid())
	if own, ok := ownCgroup(""); ok && mounts.v2 != "" {
		parent := filepath.Join(mounts.v2, own)
		dir := filepath.Join(parent, name)
		sweep(parent)
		if err := os.Mkdir(dir, 0o755); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
				os.Remove(dir) // before Linux 5.14: nothing to end it with at once
			} else if fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0); err != nil {
				os.Remove(dir)
			} else {
				c.dir, c.fd, c.clone = dir, fd, true
			}
		}
	}
	if limit > 0 {
		if c.dir != "" && hasController(c.dir, "pids") && writeFile(filepath.Join(c.dir, "pids.max"), strconv.Itoa(limit)) == nil {
			limit = 0
		}
		if limit > 0 && mounts.v1pids != "" {
			c.v1 = joinV1(mounts.v1pids, name, limit)
		}
	}
	if c.dir == "" && c.v1 == "" {
		return nil
	}
	return c
}

// CanLimitTasks reports whether a launcher started here could bound its children's
// tasks (Launcher.TaskLimit): the pids controller is offered to the children of this
// process's cgroup v2 cgroup, or a cgroup v1 pids hierarchy is mounted, and this process
// may make cgroups there (checked by making one).
func CanLimitTasks() bool {
	m := cgroupMounts()
	if own, ok := ownCgroup(""); ok && m.v2 != "" {
		dir := filepath.Join(m.v2, own)
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
		if err == nil && slices.Contains(strings.Fields(string(b)), "pids") && canMake(dir) {
			return true
		}
	}
	if own, ok := ownCgroup("pids"); ok && m.v1pids != "" {
		return canMake(filepath.Join(m.v1pids, own))
	}
	return false
}

// canMake reports whether a cgroup can be made in dir.
func canMake(dir string) bool {
	probe := filepath.Join(dir, namePrefix+"probe-"+strconv.Itoa(os.Getpid()))
	if os.Mkdir(probe, 0o755) != nil {
		return false
	}
	os.Remove(probe)
	return true
}

// cloneFD is the descriptor to start children in the cgroup with.
func (c *cgroup) cloneFD() (int, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fd, c.clone
}

// stopCloning gives up starting children in the cgroup.
func (c *cgroup) stopCloning() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clone = false
}

// cloneRefused reports whether a start failed because of the cgroup rather than the
// program (an old kernel's clone3, a cgroup that refuses processes).
func cloneRefused(err error) bool {
	return errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EBUSY) ||
		errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENODEV)
}

// kill ends every process in the cgroup at once and waits (briefly) until it is empty.
func (c *cgroup) kill() {
	if c == nil || c.dir == "" {
		return
	}
	if writeFile(filepath.Join(c.dir, "cgroup.kill"), "1") != nil {
		return
	}
	deadline := time.Now().Add(2 * time.Second)
	// The kernel tells when the cgroup empties: a change of cgroup.events since it was last
	// read wakes poll with POLLPRI. Waiting for that ends the wait as soon as the last
	// process has gone; a sleep between looks (settle) overshoots a confined arm's end,
	// whose namespaces take a millisecond or more to tear down.
	fd, err := syscall.Open(filepath.Join(c.dir, "cgroup.events"), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		settle(deadline, func() bool { return !populated(c.dir) })
		return
	}
	defer syscall.Close(fd)
	buf := make([]byte, 256)
	for {
		n, err := syscall.Pread(fd, buf, 0)
		left := time.Until(deadline)
		if err != nil || !strings.Contains(string(buf[:max(n, 0)]), "populated 1") || left <= 0 {
			return
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLPRI}}
		if _, err := unix.Poll(pfd, int(left/time.Millisecond)+1); err != nil && !errors.Is(err, syscall.EINTR) {
			settle(deadline, func() bool { return !populated(c.dir) })
			return
		}
	}
}

// remove removes the cgroup, and leaves the v1 one.
func (c *cgroup) remove() {
	if c == nil {
		return
	}
	c.mu.Lock()
	if c.fd >= 0 {
		syscall.Close(c.fd)
		c.fd, c.clone = -1, false
	}
	c.mu.Unlock()
	if c.dir != "" {
		removeDir(c.dir)
	}
	// The thread that joined (remove runs on it, as Serve does) leaves the same way.
	if c.v1 != "" && writeFile(filepath.Join(filepath.Dir(c.v1), "tasks"), "0") == nil {
		removeDir(c.v1)
	}
}

// removeDir removes an emptied cgroup; the kernel may take a moment to let go of it.
func removeDir(dir string) {
	settle(time.Now().Add(50*pollEvery), func() bool {
		err := os.Remove(dir)
		return err == nil || os.IsNotExist(err)
	})
}

// sweep removes the empty cgroups earlier runs left in parent (a launcher killed with
// kimi-run cannot remove its own): those whose launcher is gone. A cgroup still
// populated cannot be removed, and is left.
func sweep(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(strings.TrimPrefix(e.Name(), namePrefix))
		if !e.IsDir() || !strings.HasPrefix(e.Name(), namePrefix) || err != nil {
			continue
		}
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); os.IsNotExist(err) {
			os.Remove(filepath.Join(parent, e.Name()))
		}
	}
}

// joinV1 makes a cgroup v1 pids directory for the run and moves the calling thread into
// it, so every child that thread starts inherits the limit. It returns the directory, or
// "". The caller must be locked to its OS thread and fork only from it (Serve is).
//
// Only the thread moves ("0" written to tasks), not the process (cgroup.procs): moving a
// whole process takes the kernel's cgroup-wide thread-group lock, whose writer waits for
// an RCU grace period, 10–25 ms on an idle VM, which the run's first command waited for;
// the thread's own move skips that lock (about 0.15 ms). On a kernel that takes the lock
// anyway the move is as slow as before and as correct.
func joinV1(mount, name string, limit int) string {
	own, ok := ownCgroup("pids")
	if !ok {
		return ""
	}
	parent := filepath.Join(mount, own)
	sweep(parent)
	dir := filepath.Join(parent, name)
	if os.Mkdir(dir, 0o755) != nil {
		return ""
	}
	if writeFile(filepath.Join(dir, "pids.max"), strconv.Itoa(limit)) != nil ||
		writeFile(filepath.Join(dir, "tasks"), "0") != nil {
		os.Remove(dir)
		return ""
	}
	return dir
}

// mounts are where the cgroup hierarchies this launcher uses are mounted.
type mounts struct {
	v2     string // the cgroup2 mount
	v1pids string // a cgroup v1 mount with the pids controller
}

// cgroupMounts reads /proc/self/mountinfo.
func cgroupMounts() mounts {
	var m mounts
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
		fields := strings.Fields(sc.Text())
		sep := slices.Index(fields, "-")
		if sep < 5 || sep+3 >= len(fields) || fields[3] != "/" {
			continue // a bind mount of a subtree would give a wrong path
		}
		point, fstype, super := unescape(fields[4]), fields[sep+1], fields[sep+3]
		switch {
		case fstype == "cgroup2" && m.v2 == "":
			m.v2 = point
		case fstype == "cgroup" && m.v1pids == "" && slices.Contains(strings.Split(super, ","), "pids"):
			m.v1pids = point
		}
	}
	return m
}

// unescape undoes mountinfo's octal escapes (a space is \040).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ownCgroup is this process's cgroup path: the v2 one when controller is "", else the v1
// hierarchy holding controller.
func ownCgroup(controller string) (string, bool) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(b), "\n") {
		// ID:CONTROLLERS:PATH
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if controller == "" && parts[0] == "0" && parts[1] == "" {
			return parts[2], true
		}
		if controller != "" && slices.Contains(strings.Split(parts[1], ","), controller) {
			return parts[2], true
		}
	}
	return "", false
}

// hasController reports whether a v2 cgroup offers controller.
func hasController(dir, controller string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	return err == nil && slices.Contains(strings.Fields(string(b)), controller)
}

// populated reads a v2 cgroup's cgroup.events.
func populated(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	return err == nil && strings.Contains(string(b), "populated 1")
}

func writeFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

package launcher

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kimi-run/kimi-run/sandbox"
)

// roleInit is the launcher mode of a process namespace's first process.
const roleInit = "init"

// initReport is how long the arm waits for its init to report its /proc.
const initReport = 10 * time.Second

// nsAttr adds to sys a user namespace and the namespaces in flags (CLONE_NEWNET,
// CLONE_NEWNS), with the capabilities the arm needs there to set them up.
func nsAttr(sys *syscall.SysProcAttr, flags uintptr) {
	uid, gid := os.Getuid(), os.Getgid()
	sys.Cloneflags |= syscall.CLONE_NEWUSER | flags
	if uid == 0 {
		// Root maps every user, so root in the namespace still overrides the permissions
		// of files it does not own (a checkout of another user in a CI container), as it
		// did outside.
		sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		sys.GidMappingsEnableSetgroups = true
		return
	}
	sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	// A user other than root keeps, through its exec, the capabilities the set-up needs:
	// loopback's, and the mounts'.
	if flags&syscall.CLONE_NEWNET != 0 {
		sys.AmbientCaps = append(sys.AmbientCaps, unix.CAP_NET_ADMIN)
	}
	if flags&syscall.CLONE_NEWNS != 0 {
		sys.AmbientCaps = append(sys.AmbientCaps, unix.CAP_SYS_ADMIN)
	}
}

// omitted is the refusal of a part the run leaves out, or nil.
func omitted(p sandbox.Policy, part string) error {
	if slices.Contains(p.NSOmit, part) {
		return errors.New("left out by KIMI_RUN_NS")
	}
	return nil
}

func pidNote(err error) string {
	return fmt.Sprintf("--sandbox: commands cannot have a process namespace and a /proc of their own here (%v): they see every process of the machine; see docs/sandbox.md", err)
}

// armNS is what a confined arm set up of its namespaces.
type armNS struct {
	init  *os.File // the init's socket: its report; the init sees the arm gone when it closes
	pidfd int      // the init, until the arm has joined its namespace
	nsfd  int      // the init's process namespace, opened while /proc is the machine's
	notes []string // what was refused, as warnings
}

// setUp starts the init of the children's process namespace and, when p restricts the file
// system, lays out the mounts (see mounts); outlive says the children may outlive the arm.
// Called in a fresh mount namespace, before the arm confines itself.
func setUp(p sandbox.Policy, outlive bool) (*armNS, error) {
	ns := &armNS{pidfd: -1, nsfd: -1}
	// Mounts made here must not reach the machine's namespace (they would not: it is a
	// less privileged copy, whose shared mounts are slaves), nor the machine's reach here.
	_ = unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, "")
	// The init starts first: its start overlaps the arm's mounts and confinement.
	err := omitted(p, NSPID)
	if err == nil {
		err = ns.startInit(outlive)
	}
	if err != nil {
		ns.notes = append(ns.notes, pidNote(err))
	}
	if p.RestrictsFiles() {
		if err := ns.mounts(p); err != nil {
			return nil, err
		}
	}
	return ns, nil
}

// startInit starts the first process of a new process namespace, which mounts its /proc.
func (ns *armNS) startInit(outlive bool) error {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	_ = syscall.SetNonblock(fds[0], true) // so that its reads may have a deadline
	ours, theirs := os.NewFile(uintptr(fds[0]), "init"), os.NewFile(uintptr(fds[1]), "init")
	defer theirs.Close()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		ours.Close()
		return err
	}
	defer null.Close()
	pidfd := -1
	sys := &syscall.SysProcAttr{Setsid: true, Cloneflags: syscall.CLONE_NEWPID, PidFD: &pidfd}
	mode := "end"
	if outlive {
		mode = "outlive"
	} else {
		sys.Pdeathsig = syscall.SIGKILL
	}
	const self = "/proc/self/exe"
	n := null.Fd()
	pid, err := syscall.ForkExec(self, []string{self, ServeArg, roleInit, mode}, &syscall.ProcAttr{Dir: "/", Env: []string{}, Files: []uintptr{n, n, n, theirs.Fd()}, Sys: sys})
	if err != nil {
		ours.Close()
		return fmt.Errorf("start a process namespace: %w", err)
	}
	// Joined through this descriptor, the namespace is joined after Landlock too (joined
	// through the pidfd it is not: the init is outside the arm's domain).
	nsfd, err := unix.Open(fmt.Sprintf("/proc/%d/ns/pid", pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0)
		unix.Close(pidfd)
		ours.Close()
		return fmt.Errorf("open the process namespace: %w", err)
	}
	ns.init, ns.pidfd, ns.nsfd = ours, pidfd, nsfd
	return nil
}

// inside reports whether the arm's children start in its process namespace.
func (ns *armNS) inside() bool { return ns != nil && ns.init != nil }

// join waits for the init to have made its /proc and makes the namespace that of the
// arm's children. Called on the thread that forks them.
func (ns *armNS) join() {
	if ns.init == nil {
		return
	}
	err := ns.read("ready")
	if err == nil {
		if err = unix.Setns(ns.nsfd, unix.CLONE_NEWPID); err != nil {
			err = fmt.Errorf("join the process namespace: %w", err)
		}
	}
	if err != nil {
		ns.notes = append(ns.notes, pidNote(err))
		_ = unix.PidfdSendSignal(ns.pidfd, unix.SIGKILL, nil, 0)
		ns.init.Close()
		ns.init = nil
	}
	unix.Close(ns.pidfd)
	unix.Close(ns.nsfd)
	ns.pidfd, ns.nsfd = -1, -1
}

// mountProc has the init put its /proc over the arm's, once the arm has confined itself
// (go-landlock reads the arm's threads from /proc). A failure here leaves the children in
// a process namespace whose /proc is the machine's: the arm does not serve then.
func (ns *armNS) mountProc() error {
	if ns.init == nil {
		return nil
	}
	if _, err := ns.init.Write([]byte("mount")); err != nil {
		return fmt.Errorf("the process namespace's init: %w", err)
	}
	return ns.read("ok")
}

// read reads the init's next word, and fails unless it is want.
func (ns *armNS) read(want string) error {
	_ = ns.init.SetReadDeadline(time.Now().Add(initReport))
	buf := make([]byte, 512)
	n, err := ns.init.Read(buf)
	_ = ns.init.SetReadDeadline(time.Time{})
	switch {
	case err != nil:
		return fmt.Errorf("no word from its first process: %w", err)
	case string(buf[:n]) != want:
		return errors.New(string(buf[:n]))
	}
	return nil
}

// runInit is the init. It makes a /proc of its namespace (the kernel refuses that in many
// containers, where /proc is partly covered) and says "ready" on descriptor 3, puts it
// over /proc when the arm says "mount" and says "ok"; then it reaps what is orphaned in
// the namespace. It exits once the arm has gone (its end of the socket closed) and the
// namespace holds nothing else; while it runs, so does the namespace. Signals from inside
// the namespace do not end it.
func runInit() int {
	arm := os.NewFile(3, "arm")
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE, syscall.SIGUSR1, syscall.SIGUSR2)
	proc, err := procFS()
	if err != nil {
		_, _ = arm.Write([]byte(err.Error()))
		return 1
	}
	if _, err := arm.Write([]byte("ready")); err != nil {
		return 1
	}
	b := make([]byte, 16)
	if n, err := arm.Read(b); err != nil || string(b[:n]) != "mount" {
		return 1
	}
	if err := unix.MoveMount(proc, "", unix.AT_FDCWD, "/proc", unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		_, _ = arm.Write([]byte("mount a /proc of its own: " + err.Error()))
		return 1
	}
	unix.Close(proc)
	if _, err := arm.Write([]byte("ok")); err != nil {
		return 1
	}
	reapUntilAlone(arm)
	return 0
}

// procFS makes a proc file system of the caller's process namespace, not yet mounted.
func procFS() (int, error) {
	fs, err := unix.Fsopen("proc", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("open a proc file system: %w", err)
	}
	defer unix.Close(fs)
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, fmt.Errorf("make a proc file system: %w", err)
	}
	m, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return -1, fmt.Errorf("mount a /proc of its own: %w", err)
	}
	return m, nil
}

// reapUntilAlone reaps the namespace's orphans until the arm has gone and nothing else is
// left in the namespace.
func reapUntilAlone(arm *os.File) {
	wake := make(chan os.Signal, 1)
	signal.Notify(wake, syscall.SIGCHLD)
	gone := make(chan struct{})
	go func() {
		b := make([]byte, 16)
		for {
			if _, err := arm.Read(b); err != nil {
				close(gone)
				return
			}
		}
	}()
	var tick <-chan time.Time
	for {
		for {
			if pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
		// kill(-1, 0) finds every process of the namespace but this one.
		if tick != nil && errors.Is(syscall.Kill(-1, 0), syscall.ESRCH) {
			return
		}
		select {
		case <-wake:
		case <-gone:
			gone, tick = nil, time.NewTicker(time.Second).C
		case <-tick:
		}
	}
}

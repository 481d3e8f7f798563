package launcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kimi-run/kimi-run/sandbox"
)

// Serve is the launcher mode: args are the role (top or box) and its configuration (the
// top's JSON, or the box's sandbox policy and "keep" or "end"). It reads requests on
// descriptor 3 until kimi-run says the run ended or is gone, and returns the exit status.
func Serve(args []string) int {
	if len(args) < 2 {
		return 125
	}
	switch args[0] {
	case roleProbe:
		return probe()
	case roleInit:
		return runInit()
	}
	// It holds nothing anyone may read through /proc or a debugger: not dumpable before it
	// reads anything.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	closeInheritedOnExec()
	conn, err := connOf(os.NewFile(3, "launcher"))
	if err != nil {
		return 125
	}
	s := &server{role: args[0], conn: conn, children: map[int]child{}, wake: make(chan os.Signal, 1), caught: make(chan struct{})}
	go s.catchSignals()
	// Every fork happens on this OS thread, which serves requests for the launcher's whole
	// life. Landlock keeps a domain per thread, and before ABI 8 each thread restricts
	// itself into a domain of its own: children forked from one thread share its domain,
	// so a command can signal the server an earlier command started. The parent-death
	// signal is per thread too: this one never ends before the launcher does. And a cgroup
	// v1 pids group is joined by this thread alone (joinV1): its children inherit it.
	runtime.LockOSThread()
	switch s.role {
	case roleTop:
		var cfg topConfig
		if err := json.Unmarshal([]byte(args[1]), &cfg); err != nil {
			return 125
		}
		s.keep = cfg.Keep
		// Whatever a child starts, however it forks, stays below the launcher.
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
		if cfg.Cgroup {
			s.cg = newCgroup(cfg.TaskLimit)
		}
	case roleBox:
		s.keep = len(args) > 2 && args[2] == "keep"
		s.survive = len(args) > 2 && args[2] == "survive"
		p, err := sandbox.ParsePolicy(args[1])
		if err == nil && p.Namespaces {
			// Started in a mount namespace of its own (startBox): the mounts, and the
			// children's process namespace, while it may still mount.
			s.ns, err = setUp(p, s.keep || s.survive)
		}
		if err == nil && p.ProxySocket != "" {
			// Started in a network namespace of its own: set up the relay to the proxy
			// while it may still listen.
			err = isolateArm(p)
		}
		if err == nil {
			err = sandbox.Confine(p)
		}
		if err == nil && s.ns != nil {
			s.ns.join()
			err = s.ns.mountProc()
		}
		if err != nil {
			s.send(message{Op: opFail, Err: "applying the sandbox: " + err.Error()})
			return 126
		}
		if s.ns != nil {
			for _, n := range s.ns.notes {
				s.send(message{Op: opNote, Note: n})
			}
			// A command that is root in the user namespace must not undo the mounts (an
			// unmount of /proc would show the machine's): no CAP_SYS_ADMIN for children.
			_ = unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_ADMIN, 0, 0, 0)
		}
	default:
		return 125
	}
	go s.reap()
	if s.role == roleBox {
		dropAmbient()
	}
	return s.serve()
}

// catchSignals takes the signals the launcher handles from the runtime. It ends when
// kimi-run says so or is gone, not on the signals that stop a run: those are caught, not
// ignored (an ignored signal stays ignored in every child, a shell could not even trap
// SIGTERM; a caught one is reset by exec). SIGCHLD wakes the reaper for an orphan it
// adopted. Catching a signal costs a round trip to the runtime's signal thread, about a
// millisecond for these six on a small VM, so Serve does it beside its set-up and its
// first start rather than before them; the first answer waits for it, so once a child
// has started they are caught. A signal before that ends the launcher as it would have
// just before it started (it is in a session of its own: a terminal's or a job's group
// signals do not reach it).
func (s *server) catchSignals() {
	defer close(s.caught)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	signal.Notify(s.wake, syscall.SIGCHLD)
}

// server is a launcher process: the run's (top) or its confined arm (box).
type server struct {
	role    string
	conn    *net.UnixConn
	keep    bool    // --keep-background
	survive bool    // a box whose children all outlive the run
	cg      *cgroup // the run's cgroup (top), or nil
	ns      *armNS  // a box's namespaces, or nil

	sendMu sync.Mutex
	// mu is held across each start and each reaped end, so an end is never reported
	// before its start.
	mu       sync.Mutex
	children map[int]child  // the children it started
	wake     chan os.Signal // SIGCHLD, and a poke after each start: the reaper looks again
	caught   chan struct{}  // closed once the signals are caught (catchSignals)
}

// child is what the launcher knows of a child it started.
type child struct {
	keep    bool // what it leaves is kept under --keep-background (Spec.Keep)
	survive bool // it and its tree outlive the run (Spec.Survive, a survivors' arm)
	arm     bool // a confined arm, which ends its own children's groups
}

func (s *server) send(m message) {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	_ = send(s.conn, m) // kimi-run gone: the request loop sees it
}

// serve answers requests until the run ends or kimi-run is gone.
func (s *server) serve() int {
	r := newReceiver(s.conn)
	for {
		m, files, err := r.next()
		if err != nil {
			break
		}
		switch {
		case m.Op == opStart:
			s.start(m, files)
		case m.Op == opBox && s.role == roleTop:
			s.startBox(m, files)
		case m.Op == opEnd && s.role == roleTop:
			closeFiles(files)
			if !m.Keep {
				s.endAll()
			}
			s.send(message{Op: opEnded, ID: m.ID})
			// Everything below has ended; removing the emptied cgroups is bookkeeping
			// kimi-run need not wait for (leaving a v1 pids cgroup waits for an RCU
			// grace period, which takes milliseconds on a busy machine).
			s.cg.remove()
			return 0
		default:
			closeFiles(files)
		}
	}
	s.abandoned()
	return 0
}

// start starts a child with the three descriptors that came with m.
func (s *server) start(m message, files []*os.File) {
	defer closeFiles(files)
	if len(files) != 3 {
		s.send(message{Op: opStarted, ID: m.ID, Err: "a start needs three descriptors"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := child{keep: m.Keep, survive: m.Survive || s.survive}
	pid, err := s.fork(m.Path, m.Argv, m.Env, m.Dir, files, c.survive, 0)
	s.answer(m.ID, pid, err, c, "")
}

// startBox starts a confined arm: kimi-run's image in box mode, with the socket that came
// with m as its descriptor 3. A survivors' arm (m.Survive) starts outside the run's cgroup,
// and so do its children, which it starts without the parent-death signal.
func (s *server) startBox(m message, files []*os.File) {
	defer closeFiles(files)
	if len(files) != 1 {
		s.send(message{Op: opStarted, ID: m.ID, Err: "a box needs its socket"})
		return
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		s.send(message{Op: opStarted, ID: m.ID, Err: err.Error()})
		return
	}
	defer null.Close()
	mode := "end"
	switch {
	case m.Survive:
		mode = "survive"
	case m.Keep:
		mode = "keep"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	const self = "/proc/self/exe" // the image the launcher runs: kimi-run's
	// A survivors' arm needs no parent-death signal either: it exits when kimi-run's end
	// of its socket closes.
	// Under --allow-host with a proxy socket, the arm starts in a network namespace of its
	// own; asked for, in a mount namespace of its own, or without one where the machine
	// refuses it, which kimi-run hears of in the answer's note.
	p, _ := sandbox.ParsePolicy(m.Policy)
	var flags uintptr
	if p.ProxySocket != "" {
		flags |= syscall.CLONE_NEWNET
	}
	if p.Namespaces {
		flags |= syscall.CLONE_NEWNS
	}
	fds := []*os.File{null, null, null, files[0]}
	pid, err := 0, omitted(p, NSUser)
	if err == nil {
		pid, err = s.fork(self, []string{self, ServeArg, roleBox, m.Policy, mode}, []string{}, "/", fds, m.Survive, flags)
	}
	note := ""
	if err != nil && p.Namespaces {
		note = NoNamespacesNote(fmt.Sprintf("a user and mount namespace: %v", err))
		p.Namespaces, p.NSOmit = false, nil
		policy, _ := p.Encode()
		pid, err = s.fork(self, []string{self, ServeArg, roleBox, policy, mode}, []string{}, "/", fds, m.Survive, flags&^syscall.CLONE_NEWNS)
	}
	// A kept run's arm ends its own children's groups; otherwise the launcher ends all
	// but a survivors' arm's tree.
	s.answer(m.ID, pid, err, child{keep: m.Keep, survive: m.Survive, arm: true}, note)
}

// answer tells kimi-run how a start went and records the child.
func (s *server) answer(id uint64, pid int, err error, c child, note string) {
	<-s.caught
	a := message{Op: opStarted, ID: id, Pid: pid, Note: note}
	if err != nil {
		a.Pid, a.Err = 0, err.Error()
		var errno syscall.Errno
		if errors.As(err, &errno) {
			a.Errno = int(errno)
		}
	} else {
		s.children[pid] = c
	}
	s.send(a)
}

// fork starts a child leading a new session, killed when the launcher dies, in the run's
// cgroup when there is one; a survivor neither. With ns (CLONE_NEWNET, CLONE_NEWNS) it
// starts in a user namespace and those of its own (see nsAttr).
func (s *server) fork(path string, argv, env []string, dir string, files []*os.File, survive bool, ns uintptr) (int, error) {
	fds := make([]uintptr, len(files))
	for i, f := range files {
		fds[i] = f.Fd()
	}
	sys := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if ns != 0 {
		nsAttr(sys, ns)
		if os.Getuid() != 0 {
			// The child's uid_map is written by this process, which may open it only while
			// the child, which shares its memory until exec, is dumpable: the launcher is,
			// for the fork (it holds nothing a process of the user could not read itself).
			_ = unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0)
			defer unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
		}
	}
	if s.ns.inside() {
		// A child in the arm's process namespace sees no parent (getppid is 0), which
		// Go's fork takes for a parent already gone: it would kill itself. It needs no
		// parent-death signal: the namespace ends with its init, which has one (but when
		// the children may outlive the arm, see abandoned).
		sys.Pdeathsig = 0
	}
	if survive {
		sys.Pdeathsig = 0
	} else if fd, ok := s.cg.cloneFD(); ok {
		sys.UseCgroupFD, sys.CgroupFD = true, fd
	}
	attr := &syscall.ProcAttr{Dir: dir, Env: env, Files: fds, Sys: sys}
	pid, err := syscall.ForkExec(path, argv, attr)
	if err != nil && sys.UseCgroupFD && cloneRefused(err) {
		// This kernel or cgroup will not take children at clone: go on without it.
		s.cg.stopCloning()
		sys.UseCgroupFD = false
		pid, err = syscall.ForkExec(path, argv, attr)
	}
	if err == nil {
		select {
		case s.wake <- syscall.SIGCHLD:
		default:
		}
	}
	return pid, err
}

// reap waits for every child that ends, its own and the orphans it adopted as the
// subreaper, and reports its own. It blocks in wait4 while there are children, so an end
// wakes it directly; with none, it waits for the next start or SIGCHLD (an orphan adopted
// meanwhile).
func (s *server) reap() {
	for {
		var ws syscall.WaitStatus
		var ru syscall.Rusage
		pid, err := syscall.Wait4(-1, &ws, 0, &ru)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			<-s.wake
			continue
		}
		s.mu.Lock()
		if _, ok := s.children[pid]; ok {
			delete(s.children, pid)
			s.send(message{Op: opExit, Pid: pid, Status: int(ws), User: ru.Utime.Nano(), System: ru.Stime.Nano()})
		}
		s.mu.Unlock()
	}
}

// abandoned is the end when kimi-run is gone without saying the run ended (SIGKILL, a
// crash). Under --keep-background only the groups of children not kept are killed;
// otherwise the launcher ends everything below it, and the confined arm leaves that to it.
func (s *server) abandoned() {
	if s.survive {
		// Its children must not become the launcher's while it ends the run's tree (they
		// would be ended with it): stay until the launcher has gone.
		parent := os.Getppid()
		for range 1000 {
			if os.Getppid() != parent {
				break
			}
			time.Sleep(pollEvery)
		}
		return
	}
	if s.keep {
		s.mu.Lock()
		for pid, c := range s.children {
			switch {
			case !c.keep && !c.survive:
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			case c.keep && s.ns.inside():
				// What its parent-death signal does elsewhere: the child ends, what it
				// left in its group is kept.
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		s.mu.Unlock()
		// A confined arm ends its own children's groups when it sees kimi-run gone: it
		// must not be killed first by this launcher's end (its parent-death signal).
		for range 200 {
			if !s.hasArm() {
				break
			}
			time.Sleep(pollEvery)
		}
		return
	}
	if s.role == roleTop {
		s.endAll()
		s.cg.remove()
	}
}

// hasArm reports whether a regular confined arm still runs.
func (s *server) hasArm() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.children {
		if c.arm && !c.survive {
			return true
		}
	}
	return false
}

// endAll ends every process below the launcher but the survivors' trees: the cgroup at
// once where there is one, then whatever the walk of its descendants still finds. The
// cgroups are left for cg.remove.
func (s *server) endAll() {
	s.cg.kill()
	spare := map[int]bool{}
	s.mu.Lock()
	for pid, c := range s.children {
		if c.survive {
			spare[pid] = true
		}
	}
	s.mu.Unlock()
	killTree(os.Getpid(), spare)
}

// closeInheritedOnExec marks every descriptor from 3 up close-on-exec, so that a child gets
// only the descriptors it is given. The launcher holds whatever kimi-run inherited from its
// own parent and left open on exec (a wrapper script's `exec 5>>job.log`, a make
// jobserver's pipe, a CI runner's log): passed on, an open file outside the writable dirs
// would be a way around the sandbox, which judges paths only when they are opened. The
// descriptors stay open here (the runtime's own are among them, already close-on-exec).
func closeInheritedOnExec() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// Before Linux 5.11: one by one.
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
}

package launcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/kimi-run/kimi-run/internal/launch"
)

// The two roles of a launcher process.
const (
	roleTop = "top" // the run's launcher: the subreaper, unconfined
	roleBox = "box" // its confined arm
)

// errClosed is a start after Close.
var errClosed = errors.New("the run has ended")

// Process is the launcher processes of a run: the launch.Starter of its Launcher on Linux.
// It starts the launcher process at the first child, and the confined arm at the first
// confined one.
type Process struct {
	// Launcher is the run's: its Policy, Keep, NoCgroup, TaskLimit and Warn, read at each
	// start.
	*launch.Launcher
	// Exe is kimi-run's own executable (sandbox.SelfExe), started as the launcher process.
	Exe string

	warned sync.Map // the notes passed on to Warn

	mu     sync.Mutex
	closed bool
	rem    remote
}

// New returns the launcher process that starts l's children from exe, kimi-run's own
// executable (sandbox.SelfExe); it starts with the first child.
func New(exe string, l *launch.Launcher) launch.Starter { return &Process{Launcher: l, Exe: exe} }

// remote is the launcher processes of a run.
type remote struct {
	top *link
	// box are the confined arms: [0] the run's, [1] the survivors' (Spec.Survive).
	box    [2]*link
	boxing [2]chan struct{} // closed once the confined arm being started is there
	topErr error            // why the launcher process could not be started: start locally
}

// note passes a warning on to Warn, once.
func (l *Process) note(msg string) {
	if l.Warn == nil {
		return
	}
	if _, seen := l.warned.LoadOrStore(msg, true); !seen {
		l.Warn(msg)
	}
}

// topConfig is the launcher's configuration, its second argument.
type topConfig struct {
	Cgroup    bool `json:"cgroup,omitempty"`
	TaskLimit int  `json:"tasks,omitempty"`
	Keep      bool `json:"keep,omitempty"`
}

// Start starts a child through the launcher, or through its confined arm.
func (l *Process) Start(confine bool, path string, argv, env []string, files []*os.File, s launch.Spec) (*launch.Proc, error) {
	var k *link
	var err error
	if confine {
		k, err = l.boxLink(s.Survive)
	} else {
		k, err = l.topLink()
	}
	if err != nil {
		return nil, err
	}
	p, err := k.start(path, argv, env, files, s)
	if err != nil && confine && errors.Is(err, launch.ErrNoLauncher) {
		return nil, fmt.Errorf("the sandbox's launcher: %w", err)
	}
	return p, err
}

// topLink returns the launcher process, starting it at the first child.
func (l *Process) topLink() (*link, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.topLocked()
}

func (l *Process) topLocked() (*link, error) {
	r := &l.rem
	if r.top != nil && r.top.alive() {
		return r.top, nil
	}
	if l.closed {
		return nil, launch.ErrNoLauncher
	}
	if r.topErr != nil {
		return nil, r.topErr
	}
	k, err := l.startTop()
	if err != nil {
		r.topErr = fmt.Errorf("%w: %v", launch.ErrNoLauncher, err)
		return nil, r.topErr
	}
	r.top = k
	return k, nil
}

// startTop starts the launcher process: kimi-run's image in a session of its own, with no
// parent-death signal (it must outlive kimi-run to end what it leaves), an empty
// environment and /dev/null for its standard descriptors, so no pipeline waits for it.
func (l *Process) startTop() (*link, error) {
	ours, theirs, err := socketPair()
	if err != nil {
		return nil, err
	}
	cfg, _ := json.Marshal(topConfig{Cgroup: !l.NoCgroup && !l.Keep, TaskLimit: l.TaskLimit, Keep: l.Keep})
	cmd := exec.Command(l.Exe, ServeArg, roleTop, string(cfg))
	cmd.Env = []string{}
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	theirs.Close()
	if err != nil {
		ours.Close()
		return nil, err
	}
	go func() { _ = cmd.Wait() }() // it exits once the run has ended, or soon after kimi-run
	conn, err := connOf(ours)
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, err
	}
	k := newLink(conn, cmd.Process, false, nil)
	k.keep = l.Keep
	return k, nil
}

// boxLink returns a confined arm (the survivors' when survive), starting it (and the
// launcher) at its first child, and again if it was lost. The lock is not held while the
// launcher answers (it may still be starting): a Close meanwhile must not wait for it.
func (l *Process) boxLink(survive bool) (*link, error) {
	i := 0
	if survive {
		i = 1
	}
	for {
		l.mu.Lock()
		r := &l.rem
		if r.box[i] != nil && r.box[i].alive() {
			l.mu.Unlock()
			return r.box[i], nil
		}
		if l.closed {
			l.mu.Unlock()
			return nil, errClosed
		}
		if wait := r.boxing[i]; wait != nil {
			l.mu.Unlock()
			<-wait // another start is making it
			continue
		}
		top, err := l.topLocked()
		if err != nil {
			l.mu.Unlock()
			return nil, err
		}
		done := make(chan struct{})
		r.boxing[i] = done
		l.mu.Unlock()
		box, err := l.startBox(top, survive)
		l.mu.Lock()
		r.boxing[i] = nil
		close(done)
		if err == nil && l.closed {
			box.fail(nil)
			box, err = nil, errClosed
		}
		if err == nil {
			r.box[i] = box
		}
		l.mu.Unlock()
		return box, err
	}
}

// IsArm reports whether pid is a confined arm of this launcher that is running.
func (l *Process) IsArm(pid int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, box := range l.rem.box {
		if box != nil && box.pid == pid && box.alive() {
			return true
		}
	}
	return false
}

// startBox asks the launcher top for a confined arm.
func (l *Process) startBox(top *link, survive bool) (*link, error) {
	policy, err := l.Policy.Encode()
	if err != nil {
		return nil, err
	}
	ours, theirs, err := socketPair()
	if err != nil {
		return nil, err
	}
	a, err := top.request(message{Op: opBox, Policy: policy, Keep: l.Keep, Survive: survive}, topAnswer, theirs)
	theirs.Close()
	if err == nil && a.Err != "" {
		err = startError(l.Exe, a)
	}
	if err == nil && a.Note != "" {
		l.note(a.Note)
	}
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("the sandbox's launcher: %w", err)
	}
	conn, err := connOf(ours)
	if err != nil {
		return nil, err
	}
	// Its own end comes to the launcher as a child's; nobody waits for it. A survivors'
	// arm is a survivor: its tree is spared when the launcher's is ended (giveUp).
	arm := launch.NewProc(a.Pid)
	arm.Survive = survive
	top.mu.Lock()
	top.procs[a.Pid] = arm
	top.mu.Unlock()
	// The arm is the launcher's child, not ours: its handle is taken at once, while its
	// number is the arm's (only its launcher reaps it, and it has just started it).
	proc, err := os.FindProcess(a.Pid)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("the sandbox's launcher: %w", err)
	}
	return newLink(conn, proc, true, l.note), nil
}

// Close ends the launcher processes the orderly way; later starts of confined children
// fail, others start from kimi-run itself.
func (l *Process) Close() {
	l.mu.Lock()
	l.closed = true
	top, boxes := l.rem.top, l.rem.box
	l.rem.top, l.rem.box = nil, [2]*link{}
	l.mu.Unlock()
	if top != nil {
		if top.alive() {
			_, _ = top.request(message{Op: opEnd, Keep: l.Keep}, endWait)
		}
		top.fail(nil)
	}
	for _, box := range boxes {
		if box != nil {
			// Under Keep the arm ends what is not kept and exits; otherwise the launcher
			// has ended it with everything else. The survivors' arm exits once the
			// launcher has.
			box.conn.CloseWrite()
		}
	}
}

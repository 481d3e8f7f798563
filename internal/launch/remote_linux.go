package launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ServeArg is the first argument of kimi-run's launcher mode (see Serve).
const ServeArg = "__kimi-run-launcher"

// The two roles of a launcher process.
const (
	roleTop = "top" // the run's launcher: the subreaper, unconfined
	roleBox = "box" // its confined arm
)

// errNoLauncher: the launcher process could not be started, or has gone.
var errNoLauncher = errors.New("kimi-run's launcher process is not running")

// How long kimi-run waits for a launcher to answer a start. The confined arm can be
// stopped by a confined command (it shares their domain); it is then replaced.
const (
	topAnswer = 30 * time.Second
	endWait   = 3 * time.Second
)

// boxAnswer is the confined arm's: a variable for the test that stops one.
var boxAnswer = 10 * time.Second

// remote is the launcher processes of a run.
type remote struct {
	top *link
	// box are the confined arms: [0] the run's, [1] the survivors' (Spec.Survive).
	box    [2]*link
	boxing [2]chan struct{} // closed once the confined arm being started is there
	topErr error            // why the launcher process could not be started: start locally
}

// topConfig is the launcher's configuration, its second argument.
type topConfig struct {
	Cgroup    bool `json:"cgroup,omitempty"`
	TaskLimit int  `json:"tasks,omitempty"`
	Keep      bool `json:"keep,omitempty"`
}

// link is kimi-run's connection to one launcher process.
type link struct {
	conn *net.UnixConn
	pid  int // the launcher's
	// proc is the launcher as a process handle (a pidfd on Linux): a launcher that stops
	// answering is killed through it, never by a number another process may hold by then.
	proc *os.Process
	box  bool // the confined arm: its answers are checked

	mu      sync.Mutex
	nextID  uint64
	waiting map[uint64]chan message
	procs   map[int]*Proc
	early   map[int]message // ends that came before the start's answer was handled
	err     error           // set once the launcher is gone
	gone    chan struct{}
}

func newLink(conn *net.UnixConn, proc *os.Process, box bool) *link {
	k := &link{conn: conn, pid: proc.Pid, proc: proc, box: box, waiting: map[uint64]chan message{},
		procs: map[int]*Proc{}, early: map[int]message{}, gone: make(chan struct{})}
	go k.read()
	return k
}

// read handles what the launcher says until it is gone.
func (k *link) read() {
	r := newReceiver(k.conn)
	var err error
	for {
		var m message
		var files []*os.File
		m, files, err = r.next()
		if err != nil {
			break
		}
		closeFiles(files) // a launcher sends none
		if m.Op == opFail {
			err = errors.New(m.Err)
			break
		}
		k.handle(m)
	}
	k.fail(err)
}

func (k *link) handle(m message) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch m.Op {
	case opStarted, opEnded:
		if ch, ok := k.waiting[m.ID]; ok {
			delete(k.waiting, m.ID)
			ch <- m
		}
	case opExit:
		if p, ok := k.procs[m.Pid]; ok {
			delete(k.procs, m.Pid)
			p.finish(exitState(m))
			return
		}
		k.early[m.Pid] = m
	}
}

// fail marks the launcher gone: every pending request fails, and every child it had is
// reported ended (its parent-death signal killed it), but a survivor (Spec.Survive), which
// is watched until its group ends.
func (k *link) fail(err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.err != nil {
		return
	}
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		err = errNoLauncher
	} else {
		err = fmt.Errorf("%w: %v", errNoLauncher, err)
	}
	k.err = err
	for id, ch := range k.waiting {
		delete(k.waiting, id)
		close(ch)
	}
	for pid, p := range k.procs {
		delete(k.procs, pid)
		if p.survive {
			// No parent-death signal: it runs on, and only its own end may say it ended.
			go p.awaitGroupEnd()
			continue
		}
		p.finish(lost)
	}
	close(k.gone)
	k.conn.Close()
}

// alive reports whether the launcher still answers.
func (k *link) alive() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err == nil
}

// request sends m and waits up to wait for the answer.
func (k *link) request(m message, wait time.Duration, files ...*os.File) (message, error) {
	k.mu.Lock()
	if k.err != nil {
		err := k.err
		k.mu.Unlock()
		return message{}, err
	}
	k.nextID++
	m.ID = k.nextID
	ch := make(chan message, 1)
	k.waiting[m.ID] = ch
	k.mu.Unlock()
	if err := send(k.conn, m, files...); err != nil {
		k.mu.Lock()
		delete(k.waiting, m.ID)
		k.mu.Unlock()
		if errors.Is(err, syscall.EMSGSIZE) {
			return message{}, fmt.Errorf("the command line and environment are too large: %w", err)
		}
		k.fail(err)
		return message{}, k.err
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case a, ok := <-ch:
		if !ok {
			return message{}, k.failure()
		}
		return a, nil
	case <-timer.C:
		// A launcher that does not answer is stopped (SIGSTOP from a confined command,
		// say): it is killed, and the next start gets a new one.
		_ = k.proc.Kill()
		k.fail(fmt.Errorf("no answer in %s", wait))
		return message{}, k.failure()
	}
}

func (k *link) failure() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err
}

// start asks the launcher to start a child and registers it.
func (k *link) start(path string, argv, env []string, s Spec) (*Proc, error) {
	files, done, err := stdio(s)
	if err != nil {
		return nil, err
	}
	defer done()
	wait := topAnswer
	if k.box {
		wait = boxAnswer
	}
	a, err := k.request(message{Op: opStart, Path: path, Argv: argv, Env: env, Dir: s.Dir, Keep: s.Keep, Survive: s.Survive}, wait, files...)
	if err != nil {
		return nil, err
	}
	if a.Err != "" {
		return nil, startError(path, a)
	}
	if k.box && !childOf(a.Pid, k.pid) {
		// The confined arm shares its domain with the commands, which may have taken it
		// over: a number it gives must be its own child's, or kimi-run would signal a
		// group it does not own.
		_ = k.proc.Kill()
		k.fail(errors.New("it named a process that is not its child"))
		return nil, k.failure()
	}
	p := newProc(a.Pid)
	p.survive = s.Survive
	k.mu.Lock()
	defer k.mu.Unlock()
	if m, ok := k.early[a.Pid]; ok {
		delete(k.early, a.Pid)
		p.finish(exitState(m))
	} else if k.err != nil {
		p.finish(lost)
	} else {
		k.procs[a.Pid] = p
	}
	return p, nil
}

// startError is the error of a start the launcher refused, worded as os.StartProcess's.
func startError(path string, a message) error {
	if a.Errno != 0 {
		return &os.PathError{Op: "fork/exec", Path: path, Err: syscall.Errno(a.Errno)}
	}
	return errors.New(a.Err)
}

// exitState turns an exit message into a State.
func exitState(m message) State {
	ws := syscall.WaitStatus(m.Status)
	s := State{code: -1, User: time.Duration(m.User), System: time.Duration(m.System)}
	switch {
	case ws.Exited():
		s.code = ws.ExitStatus()
		s.desc = "exit status " + strconv.Itoa(s.code)
	case ws.Signaled():
		s.desc = "signal: " + ws.Signal().String()
		if ws.CoreDump() {
			s.desc += " (core dumped)"
		}
	default:
		s.desc = "ended with wait status " + strconv.Itoa(m.Status)
	}
	return s
}

// childOf reports whether pid is a child of parent, or has ended already (an exit will
// say so). The stat of a process being reaped may read as nothing, or with parent 0.
func childOf(pid, parent int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if err != nil || i < 0 {
		_, serr := os.Stat("/proc/" + strconv.Itoa(pid))
		return os.IsNotExist(serr)
	}
	f := strings.Fields(s[i+1:])
	if len(f) > 1 && (f[0] == "Z" || f[0] == "X") {
		return true // ended: a dead process shows no parent
	}
	return len(f) > 1 && f[1] == strconv.Itoa(parent)
}

// startRemote starts a child through the launcher, or through its confined arm.
func (l *Launcher) startRemote(confine bool, path string, argv, env []string, s Spec) (*Proc, error) {
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
	p, err := k.start(path, argv, env, s)
	if err != nil && confine && errors.Is(err, errNoLauncher) {
		return nil, fmt.Errorf("the sandbox's launcher: %w", err)
	}
	return p, err
}

// topLink returns the launcher process, starting it at the first child.
func (l *Launcher) topLink() (*link, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.topLocked()
}

func (l *Launcher) topLocked() (*link, error) {
	r := &l.rem
	if r.top != nil && r.top.alive() {
		return r.top, nil
	}
	if l.closed {
		return nil, errNoLauncher
	}
	if r.topErr != nil {
		return nil, r.topErr
	}
	k, err := l.startTop()
	if err != nil {
		r.topErr = fmt.Errorf("%w: %v", errNoLauncher, err)
		return nil, r.topErr
	}
	r.top = k
	return k, nil
}

// warmRemote starts what a start (a confined one when confine) needs that is not running
// or starting yet, without waiting for it.
func (l *Launcher) warmRemote(confine bool) {
	l.mu.Lock()
	r := &l.rem
	ready := l.closed || r.topErr != nil || (r.top != nil && r.top.alive() &&
		(!confine || r.boxing[0] != nil || (r.box[0] != nil && r.box[0].alive())))
	l.mu.Unlock()
	if ready {
		return
	}
	go func() {
		// A failure is the first start's to report: it meets the same one.
		if confine {
			_, _ = l.boxLink(false)
		} else {
			_, _ = l.topLink()
		}
	}()
}

// startTop starts the launcher process: kimi-run's image in a session of its own, with no
// parent-death signal (it must outlive kimi-run to end what it leaves), an empty
// environment and /dev/null for its standard descriptors, so no pipeline waits for it.
func (l *Launcher) startTop() (*link, error) {
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
	return newLink(conn, cmd.Process, false), nil
}

// boxLink returns a confined arm (the survivors' when survive), starting it (and the
// launcher) at its first child, and again if it was lost. The lock is not held while the
// launcher answers (it may still be starting): a Close meanwhile must not wait for it.
func (l *Launcher) boxLink(survive bool) (*link, error) {
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

// startBox asks the launcher top for a confined arm.
func (l *Launcher) startBox(top *link, survive bool) (*link, error) {
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
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("the sandbox's launcher: %w", err)
	}
	conn, err := connOf(ours)
	if err != nil {
		return nil, err
	}
	// Its own end comes to the launcher as a child's; nobody waits for it.
	top.mu.Lock()
	top.procs[a.Pid] = newProc(a.Pid)
	top.mu.Unlock()
	// The arm is the launcher's child, not ours: its handle is taken at once, while its
	// number is the arm's (only its launcher reaps it, and it has just started it).
	proc, err := os.FindProcess(a.Pid)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("the sandbox's launcher: %w", err)
	}
	return newLink(conn, proc, true), nil
}

// closeRemote ends the launcher processes the orderly way.
func (l *Launcher) closeRemote() {
	l.mu.Lock()
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

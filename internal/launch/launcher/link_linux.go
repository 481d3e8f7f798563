package launcher

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kimi-run/kimi-run/internal/launch"
)

// How long kimi-run waits for a launcher to answer a start. The confined arm can be
// stopped by a confined command (it shares their domain); it is then replaced.
const endWait = 3 * time.Second

// topAnswer is the launcher's, boxAnswer the confined arm's: variables for the tests that
// stop one.
var (
	topAnswer = 30 * time.Second
	boxAnswer = 10 * time.Second
)

// link is kimi-run's connection to one launcher process.
type link struct {
	conn *net.UnixConn
	pid  int // the launcher's
	// proc is the launcher as a process handle (a pidfd on Linux): a launcher that stops
	// answering is killed through it, never by a number another process may hold by then.
	proc *os.Process
	box  bool // the confined arm: its answers are checked
	keep bool // the launcher of a --keep-background run (Launcher.Keep)
	// note hears of the parts of the sandbox a confined arm could not have (opNote).
	note func(string)

	mu      sync.Mutex
	nextID  uint64
	waiting map[uint64]chan message
	procs   map[int]*launch.Proc
	early   map[int]message // ends that came before the start's answer was handled
	err     error           // set once the launcher is gone
	gone    chan struct{}
}

func newLink(conn *net.UnixConn, proc *os.Process, box bool, note func(string)) *link {
	k := &link{conn: conn, pid: proc.Pid, proc: proc, box: box, note: note, waiting: map[uint64]chan message{},
		procs: map[int]*launch.Proc{}, early: map[int]message{}, gone: make(chan struct{})}
	go k.read()
	wait := topAnswer
	if box {
		wait = boxAnswer
	}
	go k.watch(wait)
	return k
}

// watch gives the launcher up (giveUp) once it has been seen stopped for wait, as one that
// does not answer a start. A stopped launcher reports no child's end either: every wait
// on its children — a Shell call past its timeout, a hook, the run's end — would last as
// long as the stop, forever without --timeout. Seen: a confined command that stops its
// confined arm (`kill -STOP` of its parent: they share a domain) held its own call, and
// so the run, until --timeout. It looks once a second (the state in /proc/PID/stat), so
// it costs no start or call anything.
//
// The time it is seen stopped adds up over its life and never starts again from zero:
// nothing stops a launcher for good reason, and a process left running by a command could
// otherwise stop and continue the arm in turn, holding every call for ever.
func (k *link) watch(wait time.Duration) {
	every := min(time.Second, wait/4)
	tick := time.NewTicker(every)
	defer tick.Stop()
	var stopped time.Duration
	for {
		select {
		case <-k.gone:
			return
		case <-tick.C:
		}
		if st, _, ok := statOf(k.pid); !ok || (st != 'T' && st != 't') {
			continue
		}
		if stopped += every; stopped > wait {
			k.giveUp()
			k.fail(fmt.Errorf("stopped for %s", wait))
			return
		}
	}
}

// read handles what the launcher says until it is gone.
func (k *link) read() {
	r := newReceiver(k.conn)
	r.small = true // a launcher sends no descriptors, nor bodies in one
	var err error
	for {
		var m message
		m, _, err = r.next()
		if err != nil {
			break
		}
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
			p.Finish(exitState(m))
			return
		}
		k.early[m.Pid] = m
	case opNote:
		if k.note != nil {
			k.note(m.Note)
		}
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
		err = launch.ErrNoLauncher
	} else {
		err = fmt.Errorf("%w: %v", launch.ErrNoLauncher, err)
	}
	k.err = err
	for id, ch := range k.waiting {
		delete(k.waiting, id)
		close(ch)
	}
	for pid, p := range k.procs {
		delete(k.procs, pid)
		if p.Survive {
			// No parent-death signal: it runs on, and only its own end may say it ended.
			go awaitGroupEnd(p)
			continue
		}
		p.Finish(launch.Lost)
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
		// say), or starved: it is given up, and the next start gets a new one.
		k.giveUp()
		k.fail(fmt.Errorf("no answer in %s", wait))
		return message{}, k.failure()
	}
}

// giveUp ends a launcher that did not answer in time. A confined arm is killed: what its
// children leave is adopted by the launcher, which ends it with the run. The launcher is
// the ancestor of everything the run started: killed alone, it would leave all but its
// direct children to init, in a cgroup nobody ends (seen: a setsid'd daemon outlived a run
// whose launcher was stopped, or slow to end a large tree, when kimi-run said "end").
// So kimi-run first ends that tree itself, as the launcher would (survivors spared). Under
// --keep-background it is left alone: its kept children would die with it (parent-death
// signal), and the closed link tells it to end the rest once it runs again.
func (k *link) giveUp() {
	if k.proc.Signal(syscall.Signal(0)) != nil {
		return // gone already: its number, which the walk below starts from, may not be its
	}
	if !k.box {
		if k.keep {
			return
		}
		k.mu.Lock()
		spare := map[int]bool{}
		for pid, p := range k.procs {
			if p.Survive {
				spare[pid] = true
			}
		}
		k.mu.Unlock()
		killTree(k.pid, spare)
	}
	_ = k.proc.Kill()
}

func (k *link) failure() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err
}

// unreported is the State of a survivor whose group ended after its launcher had gone: it
// ended, but nobody is left to say how.
var unreported = launch.Ended(-1, "ended (its exit status is unknown: its launcher had gone)", 0, 0)

// awaitGroupEnd finishes p once its group has no running member: the end of a survivor
// whose launcher, which would have reported it, is gone.
func awaitGroupEnd(p *launch.Proc) {
	for p.Alive() {
		time.Sleep(pollEvery)
	}
	p.Finish(unreported)
}

// start asks the launcher to start a child and registers it.
func (k *link) start(path string, argv, env []string, files []*os.File, s launch.Spec) (*launch.Proc, error) {
	wait := topAnswer
	if k.box {
		wait = boxAnswer
	}
	since := launch.StartedBy() // no process of the child's group started before (a tick back)
	if since > 0 {
		since--
	}
	a, err := k.request(message{Op: opStart, Path: path, Argv: argv, Env: env, Dir: s.Dir, Keep: s.Keep, Survive: s.Survive}, wait, files...)
	if err != nil {
		return nil, err
	}
	if a.Err != "" {
		return nil, startError(path, a)
	}
	if k.box && !childOf(a.Pid, k.pid, since) {
		// The confined arm shares its domain with the commands, which may have taken it
		// over: a number it gives must be its own child's, or kimi-run would signal a
		// group it does not own.
		_ = k.proc.Kill()
		k.fail(errors.New("it named a process that is not its child"))
		return nil, k.failure()
	}
	p := launch.NewProc(a.Pid)
	p.Survive = s.Survive
	k.mu.Lock()
	defer k.mu.Unlock()
	if m, ok := k.early[a.Pid]; ok {
		delete(k.early, a.Pid)
		p.Finish(exitState(m))
	} else if k.err != nil {
		p.Finish(launch.Lost)
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
func exitState(m message) launch.State {
	ws := syscall.WaitStatus(m.Status)
	code, desc := -1, ""
	switch {
	case ws.Exited():
		code = ws.ExitStatus()
		desc = "exit status " + strconv.Itoa(code)
	case ws.Signaled():
		desc = "signal: " + ws.Signal().String()
		if ws.CoreDump() {
			desc += " (core dumped)"
		}
	default:
		desc = "ended with wait status " + strconv.Itoa(m.Status)
	}
	return launch.Ended(code, desc, time.Duration(m.User), time.Duration(m.System))
}

// childOf reports whether pid is a child of parent, or has ended already (an exit will
// say so). The stat of a process being reaped may read as nothing, or with parent 0; a
// child that has ended so is taken at its word only while no process of its group started
// before since (when the start was asked for): a number no process holds may still name a
// group outside whose leader is gone, which kimi-run would then signal.
func childOf(pid, parent int, since uint64) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if err != nil || i < 0 {
		_, serr := os.Stat("/proc/" + strconv.Itoa(pid))
		return os.IsNotExist(serr) && !launch.OlderMember(pid, since)
	}
	f := strings.Fields(s[i+1:])
	if len(f) > 1 && f[0] == "X" {
		return !launch.OlderMember(pid, since) // being reaped: it may show no parent
	}
	// A zombie still shows its parent: any other process's zombie is not a child, though
	// it ended (a confined arm in a confined command's hands may name one, so that
	// kimi-run signals a group outside the sandbox).
	return len(f) > 1 && f[1] == strconv.Itoa(parent)
}

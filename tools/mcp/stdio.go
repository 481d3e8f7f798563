package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/internal/launch"
)

// process is a running stdio server. kimi-run holds its own ends of three pipes; the child
// holds the others. Pipes rather than exec's copying goroutines, so that waiting for the
// process never waits for a grandchild that inherited stderr.
type process struct {
	proc   *launch.Proc
	stdin  *os.File // our write end of the server's stdin
	stdout *os.File // our read end of the server's stdout
	stderr *os.File // our read end of the server's stderr

	exited chan struct{} // closed once the process has been waited for
	state  launch.State

	stderrDone chan struct{} // closed when the stderr reader has stopped
	tail       *tail

	stopOnce sync.Once
}

// startProcess starts a stdio server through l (the run's launcher) in its own process
// group, with stderr lines going to onLine (when not nil) and into a short tail kept for
// error messages.
func startProcess(s Server, onLine func(server, line string), l *launch.Launcher) (*process, error) {
	if s.Command == "" {
		return nil, errors.New("no command")
	}

	var parent, child []*os.File
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			parent = append(parent, r, w)
		}
		return r, w, err
	}
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			f.Close()
		}
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll(parent)
		return nil, fmt.Errorf("creating pipes: %w", err)
	}
	child = []*os.File{inR, outW, errW}
	// A group of its own (launch): the group can be signalled as a whole, a terminal's
	// Ctrl-C does not reach the server before kimi-run has decided how to stop it, and
	// nothing in it can open /dev/tty to prompt. Confined under the sandbox when
	// sandbox/runplan decided so (Server.Confine).
	proc, err := l.Start(launch.Spec{Path: s.Command, Args: append([]string{s.Command}, s.Args...), Env: s.Env, Dir: s.Dir,
		Stdin: inR, Stdout: outW, Stderr: errW, Confine: s.Confine})
	closeAll(child)
	if err != nil {
		closeAll([]*os.File{inW, outR, errR})
		return nil, fmt.Errorf("cannot start: %w", err)
	}

	p := &process{
		proc: proc, stdin: inW, stdout: outR, stderr: errR,
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
		tail:       &tail{},
	}
	go func() {
		p.state = proc.Wait()
		close(p.exited)
	}()
	go p.readStderr(func(line string) {
		if onLine != nil {
			onLine(s.Name, line)
		}
	})
	return p, nil
}

// maxStderrLine is the longest stderr line passed on; the rest of a longer one is dropped.
const maxStderrLine = 4096

func (p *process) readStderr(onLine func(string)) {
	defer close(p.stderrDone)
	r := bufio.NewReaderSize(p.stderr, maxStderrLine)
	for {
		line, isPrefix, err := r.ReadLine()
		if len(line) > 0 {
			s := strings.TrimRight(string(line), "\r")
			p.tail.add(s)
			onLine(s)
		}
		for isPrefix && err == nil { // skip the rest of an over-long line
			_, isPrefix, err = r.ReadLine()
		}
		if err != nil {
			return
		}
	}
}

func (p *process) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// exitErr describes how the process ended; call it after exited is closed.
func (p *process) exitErr() error { return errors.New(p.state.String()) }

// drainStderr gives the stderr reader up to d to take in the last lines of a process that
// has just ended, so that error messages can quote them. The reader ends as soon as the
// pipe does; d only runs out when something the server left behind still holds it.
func (p *process) drainStderr(d time.Duration) {
	select {
	case <-p.stderrDone:
	case <-time.After(d):
	}
}

// collect makes sure the process ends and waits until its exit is collected, or ctx ends:
// for a server whose link broke, which cannot serve again. It is killed if it still runs,
// so the wait is the kernel's, not a timer's: what is reported about the server does not
// depend on how loaded the machine is. It reports whether the exit was collected.
func (p *process) collect(ctx context.Context) bool {
	if p.hasExited() {
		return true // also when ctx ended because of this exit
	}
	p.kill()
	select {
	case <-p.exited:
		return true
	case <-ctx.Done():
		// The exit may be why ctx ended: then both were ready and select chose at random.
		return p.hasExited()
	}
}

// exitedOnItsOwn says the process ended by exiting rather than by a signal; call it after
// exited is closed.
func (p *process) exitedOnItsOwn() bool {
	return p.state.Exited()
}

// stop closes the server's stdin and waits briefly for it to go (when graceful), then
// signals its whole process group: SIGTERM, then SIGKILL. The group is killed in the end
// even when the server itself exited, so that nothing it started in the background survives.
func (p *process) stop(graceful bool) {
	p.stopOnce.Do(func() {
		p.stdin.Close()
		grace := stdinGrace
		if !graceful {
			grace = 0
		}
		proc := p.proc
		if !p.waitExit(grace) {
			_ = proc.Signal(false)
			if !p.waitExit(termGrace) {
				_ = proc.Signal(true)
				p.waitExit(killWait)
			}
		}
		_ = proc.Signal(true)
		launch.WaitGone(time.Now().Add(killWait), proc)
		p.stdout.Close()
		p.drainStderr(stderrDrain)
		p.stderr.Close()
	})
}

// kill sends SIGKILL to the process group without waiting.
func (p *process) kill() { _ = p.proc.Signal(true) }

func (p *process) waitExit(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// tail keeps the last few stderr lines of a server, shortened, for error messages.
type tail struct {
	mu    sync.Mutex
	lines []string
}

const (
	tailLines = 3
	tailWidth = 200
)

func (t *tail) add(line string) {
	line = strings.TrimSpace(line)
	if line == "" {
		return
	}
	if r := []rune(line); len(r) > tailWidth {
		line = string(r[:tailWidth]) + "…"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > tailLines {
		t.lines = t.lines[len(t.lines)-tailLines:]
	}
}

// String joins the kept lines with " | ".
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, " | ")
}

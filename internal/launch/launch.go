// Package launch starts every process a run starts — Shell commands, hook commands, MCP
// servers, rg, background tasks — with one rule for each of the three things that matter:
//
//   - Environment: a child gets the launcher's environment (run/ gives it kimi-run's, with
//     the credentials left out) plus what its Spec adds; under the sandbox also the run's
//     temp dir. Nothing else.
//   - Confinement: a child whose Spec asks for it runs under the run's sandbox policy, or
//     does not run at all. All confined children of a run share one Landlock domain, so one
//     Shell call can stop a server an earlier one started, while no confined process can
//     signal, trace or read anything outside it (kimi-run, the launcher, other processes).
//   - Lifetime: each child leads a process group of its own (a new session), dies with the
//     launcher (parent-death signal), and everything it leaves behind — group members,
//     setsid'd and double-forked daemons included — is ended with the run, unless its Spec
//     says Keep.
//
// A Launcher holds those rules and hands each start to a Starter, which starts the child
// and says when it ended: on Linux kimi-run's launcher process (internal/launch/launcher,
// whose package doc tells its story), elsewhere, and when that process cannot start,
// kimi-run itself (a confined child then fails to start). Either way kimi-run signals a
// child's group itself (Proc.Signal), never a number another process holds by then. Read
// launch.go first, then output.go, capture.go and head.go (a child's output); group_*.go
// and attr_*.go are each system's way to start, signal and look into a group. See
// docs/sandbox.md for what each part guarantees.
package launch

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kimi-run/kimi-run/sandbox"
)

// pollEvery is how often a wait for groups to end looks again.
const pollEvery = 10 * time.Millisecond

// Spec is one process to start.
type Spec struct {
	// Path is the program: an absolute path, a path relative to Dir (with a slash), or a
	// name looked up on kimi-run's PATH.
	Path string
	// Args is the argument list, Args[0] included; empty means just Path.
	Args []string
	// Env is set on top of the launcher's environment; a later entry wins.
	Env []string
	// Dir is the working directory; empty is kimi-run's.
	Dir string
	// Stdin, Stdout and Stderr are the child's descriptors 0, 1 and 2; nil is /dev/null.
	// The caller closes its copies once Start returns.
	Stdin, Stdout, Stderr *os.File
	// Confine runs the child under the launcher's sandbox policy (when it has one).
	Confine bool
	// Keep lets what the child leaves running outlive the run under the launcher's Keep
	// (Shell's, for --keep-background). The child itself is still ended with the run.
	Keep bool
	// Survive lets the child and everything it starts outlive the run (a background task
	// kept alive on exit): it starts without the parent-death signal, outside the run's
	// cgroup and, confined, from a confined arm of its own; the run's end leaves its tree
	// alone. Without a cgroup, what it double-forks away from its tree is still ended, and
	// its end is not reported once the launcher has gone.
	Survive bool
}

// Launcher starts a run's children. The zero value, and a nil *Launcher, start them from
// kimi-run itself with its own environment and no confinement. Its methods are safe for
// concurrent use.
type Launcher struct {
	// Process starts the children (launcher.New); nil starts them from kimi-run itself.
	Process Starter
	// Environ is the environment every child starts from; nil is this process's.
	Environ []string
	// Policy confines the children whose Spec says Confine.
	Policy sandbox.Policy
	// Keep is --keep-background: the run makes no cgroup (what is kept must not sit in a
	// cgroup the run removes), and after a SIGKILL of kimi-run only the groups of children
	// started without Spec.Keep are killed.
	Keep bool
	// NoCgroup keeps the launcher from making a cgroup for the run (KIMI_RUN_CGROUP=off).
	NoCgroup bool
	// TaskLimit bounds the tasks (processes and threads) the run's children may have
	// together, where a cgroup with the pids controller can be had; 0 sets no limit.
	TaskLimit int
	// Warn hears, once each, of the parts of the sandbox this machine refused (a process
	// namespace, read-only mounts: Policy.Namespaces); the commands run without them.
	Warn func(string)
}

// A Starter starts a Launcher's children: path, already resolved, with argv and env as
// Start made them and files as descriptors 0-2, under the Launcher's Policy when confine.
// Each child leads a process group of its own; the Starter finishes its Proc (Proc.Finish)
// once it has ended. ErrNoLauncher from Start says it cannot start children at all: one
// that need not be confined is then started from kimi-run itself.
type Starter interface {
	Start(confine bool, path string, argv, env []string, files []*os.File, s Spec) (*Proc, error)
	// IsArm reports whether pid is one of the Starter's confined arms (see Launcher.IsArm).
	IsArm(pid int) bool
	// Close ends what the children left running (unless Keep) and waits for that, briefly.
	Close()
}

// ErrNoLauncher is a Starter's that cannot start children: its process could not be
// started, or has gone.
var ErrNoLauncher = errors.New("kimi-run's launcher process is not running")

// Start starts the child s describes.
func (l *Launcher) Start(s Spec) (*Proc, error) {
	path, err := resolve(s.Path, s.Dir)
	if err != nil {
		return nil, err
	}
	argv := s.Args
	if len(argv) == 0 {
		argv = []string{s.Path}
	}
	env := mergeEnv(l.environ(), s.Env)
	confine := l != nil && s.Confine && l.Policy.Active()
	if confine {
		env = l.Policy.CommandEnv(env)
	}
	files, done, err := stdio(s)
	if err != nil {
		return nil, err
	}
	defer done()
	var st Starter = inProcess{}
	if l != nil && l.Process != nil {
		st = l.Process
	}
	p, err := st.Start(confine, path, argv, env, files, s)
	if errors.Is(err, ErrNoLauncher) && !confine {
		return inProcess{}.Start(false, path, argv, env, files, s) // no launcher process: as before it existed
	}
	return p, err
}

func (l *Launcher) environ() []string {
	if l == nil || l.Environ == nil {
		return os.Environ()
	}
	return l.Environ
}

// Close ends the run's launcher the orderly way: what the children left running is ended
// (unless Keep), then the launcher exits. It waits for that, briefly. Later starts of
// confined children fail; others start from kimi-run itself.
func (l *Launcher) Close() {
	if l != nil && l.Process != nil {
		l.Process.Close()
	}
}

// IsArm reports whether pid is a confined arm of this launcher that is running: the arms
// relay their commands' connections to the --allow-host proxy's socket, which serves
// nothing else.
func (l *Launcher) IsArm(pid int) bool { return l != nil && l.Process != nil && l.Process.IsArm(pid) }

// resolve turns a Spec's Path into the absolute file to execute, as exec.Command and
// Cmd.Start would find it.
func resolve(path, dir string) (string, error) {
	if path == "" {
		return "", errors.New("no program to run")
	}
	if !strings.ContainsRune(path, filepath.Separator) && !strings.ContainsRune(path, '/') {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", err
		}
		path = p
	}
	if !filepath.IsAbs(path) {
		if dir != "" {
			path = filepath.Join(dir, path)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", err
		}
		path = abs
	}
	return path, nil
}

// mergeEnv is base with extra set on top: one entry per name, the last one winning, in
// the order the names first appear.
func mergeEnv(base, extra []string) []string {
	if len(extra) == 0 {
		return base
	}
	all := append(append(make([]string, 0, len(base)+len(extra)), base...), extra...)
	index := make(map[string]int, len(all))
	out := all[:0:0]
	for _, kv := range all {
		name, _, _ := strings.Cut(kv, "=")
		if i, ok := index[name]; ok {
			out[i] = kv
			continue
		}
		index[name] = len(out)
		out = append(out, kv)
	}
	return out
}

// State is how a child ended.
type State struct {
	code int    // exit status, -1 when killed by a signal or unknown
	desc string // as os.ProcessState says it: "exit status 1", "signal: killed"
	// User and System are the CPU time the child used.
	User, System time.Duration
}

// ExitCode is the exit status, or -1 when the child was killed by a signal or its end is
// unknown.
func (s State) ExitCode() int { return s.code }

// Success reports whether the child exited with status 0.
func (s State) Success() bool { return s.code == 0 }

// Exited reports whether the child ended by exiting rather than by a signal.
func (s State) Exited() bool { return s.code >= 0 }

func (s State) String() string { return s.desc }

// Ended is the State of a child that ended with code (-1: by a signal, or unknown), as desc
// says it ("exit status 1", "signal: killed"), having used user and system CPU time.
func Ended(code int, desc string, user, system time.Duration) State {
	return State{code: code, desc: desc, User: user, System: system}
}

// Lost is the State of a child whose launcher went away before reporting its end; the
// parent-death signal killed it.
var Lost = State{code: -1, desc: "signal: killed (its launcher ended)"}

// Proc is a started child: the leader of a process group of its own.
type Proc struct {
	// Pid is the child's process id, which is also its group's.
	Pid int

	// Survive: started to outlive the run (Spec.Survive), so without a parent-death signal
	// (its Starter sets it).
	Survive bool

	// bound: the child had started by then (StartedBy). Once its group has ended, the
	// number may be given to another process: one started after bound is not signalled.
	bound uint64
	// over: the group was seen ended after the child exited; it is never signalled again.
	over atomic.Bool

	done  chan struct{}
	state State
	once  sync.Once
}

// NewProc is the Proc of a child a Starter has just started.
func NewProc(pid int) *Proc { return &Proc{Pid: pid, bound: StartedBy(), done: make(chan struct{})} }

// Finish records how the child ended, once: its Starter calls it.
func (p *Proc) Finish(s State) {
	p.once.Do(func() {
		p.state = s
		close(p.done)
	})
}

// Done is closed once the child has exited (and been reaped).
func (p *Proc) Done() <-chan struct{} { return p.done }

// Wait waits for the child to exit and says how it ended.
func (p *Proc) Wait() State {
	<-p.done
	return p.state
}

// Exited reports whether the child has exited.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Signal sends SIGTERM, or SIGKILL when kill is set, to the child's whole group (which may
// outlive the child). A group that has ended is not an error, and is not signalled: its
// number may be another process's by now.
func (p *Proc) Signal(kill bool) error {
	if p.over.Load() || (!groupsOutliveLeader && p.Exited()) {
		return nil
	}
	return signalGroup(p.Pid, p.bound, kill)
}

// Alive reports whether any member of the child's group still runs. Zombies do not run:
// a group of zombies has ended.
func (p *Proc) Alive() bool {
	if p.over.Load() {
		return false
	}
	alive := groupAlive(p.Pid, p.bound)
	if !alive && p.Exited() {
		p.over.Store(true) // with the leader reaped, an empty group is gone for good
	}
	return alive
}

// WaitGone waits until none of the groups led by ps has a running member, or until
// deadline, and reports whether they have all ended.
func WaitGone(deadline time.Time, ps ...*Proc) bool {
	for {
		alive := false
		for _, p := range ps {
			if p.Alive() {
				alive = true
				break
			}
		}
		if !alive {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
}

// Stop ends the groups led by ps that still have a running member: SIGTERM, SIGKILL to
// what is left after grace, then a wait of up to killWait for them to go. It returns how
// many groups it found running.
func Stop(grace, killWait time.Duration, ps ...*Proc) int {
	var live []*Proc
	for _, p := range ps {
		if p.Alive() {
			live = append(live, p)
			_ = p.Signal(false)
		}
	}
	if len(live) == 0 {
		return 0
	}
	WaitGone(time.Now().Add(grace), live...)
	for _, p := range live {
		if p.Alive() {
			_ = p.Signal(true)
		}
	}
	WaitGone(time.Now().Add(killWait), live...)
	return len(live)
}

// stdio returns s's three descriptors with /dev/null for the missing ones, and a function
// that closes what it opened.
func stdio(s Spec) ([]*os.File, func(), error) {
	files := []*os.File{s.Stdin, s.Stdout, s.Stderr}
	var null *os.File
	for i, f := range files {
		if f != nil {
			continue
		}
		if null == nil {
			var err error
			if null, err = os.OpenFile(os.DevNull, os.O_RDWR, 0); err != nil {
				return nil, nil, err
			}
		}
		files[i] = null
	}
	return files, func() {
		if null != nil {
			null.Close()
		}
	}, nil
}

// inProcess is the Starter that starts children from kimi-run itself, each in a group of
// its own: elsewhere than Linux, and when the launcher process cannot start.
type inProcess struct{}

func (inProcess) Start(confine bool, path string, argv, env []string, files []*os.File, s Spec) (*Proc, error) {
	if confine {
		return nil, errors.New("the sandbox needs kimi-run's launcher process, and none is set")
	}
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{Dir: s.Dir, Env: env, Files: files, Sys: localAttr(s.Survive)})
	if err != nil {
		return nil, err
	}
	p := NewProc(proc.Pid)
	go func() {
		ps, err := proc.Wait()
		if err != nil {
			p.Finish(Lost)
			return
		}
		p.Finish(Ended(ps.ExitCode(), ps.String(), ps.UserTime(), ps.SystemTime()))
	}()
	return p, nil
}

func (inProcess) IsArm(int) bool { return false }

func (inProcess) Close() {}

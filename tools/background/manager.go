// Package background runs a run's background tasks: commands the model starts with Shell's
// run_in_background, which go on while it works, as Kimi CLI's background tasks do. A task
// is a process started through the run's launcher (confined under the sandbox, with the
// run's scrubbed environment, in a process group of its own), with its output kept in a
// bounded file; it ends by itself, at its own timeout, when the model stops it (TaskStop),
// or with the run, unless the run keeps it alive ([background] keep_alive_on_exit).
//
// When a task ends, the manager writes a task_ended event (carrying Kimi CLI's
// Notification object) and keeps a notice for the model, which the root agent reads before
// its next step (Manager.TakeNotices). After the last turn, print mode waits for the
// tasks (Manager.AwaitAll), running more turns through a Turner as they end.
package background

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/internal/scrub"
)

// Spec is one task to start: a Shell command run in the background.
type Spec struct {
	// Path and Args are the program and its arguments (Args[0] included): the shell with
	// the command line.
	Path string
	Args []string
	// Env is set on top of the launcher's environment.
	Env []string
	// Command is the command line, as the model wrote it (for the task's records).
	Command string
	// Description is the model's short name for the task.
	Description string
	// Timeout is how long it may run; 0 is Config.TaskTimeout.
	Timeout time.Duration
	// ToolCallID is the Shell call that starts it.
	ToolCallID string
}

// Manager holds a run's background tasks. Its methods are safe for concurrent use; a nil
// Manager has no tasks and starts none.
type Manager struct {
	// Launcher starts the tasks.
	Launcher *launch.Launcher
	// Dir is where each task gets its folder (its record and its output file). Empty: a
	// temporary folder made for the first task, removed by Close unless a task outlives
	// the run.
	Dir string
	// WorkDir is the directory the commands run in.
	WorkDir string
	// Config is the [background] settings.
	Config Config
	// Emit receives the task events (task_started, task_output, task_ended); nil drops them.
	Emit func(event.Payload)
	// Secrets are scrubbed from what leaves the manager (events, notices, a task's record)
	// and from a task's output.log as it is written; nil scrubs nothing. A task kept alive
	// writes its own output.log, raw: nothing of kimi-run is left to scrub it.
	Secrets *scrub.Set
	// Now is the clock (default time.Now); NewID names a task (default: bash- and eight
	// random letters or digits, as Kimi CLI names them).
	Now   func() time.Time
	NewID func() string

	mu sync.Mutex
	// ending is held while a task's end is saved and published: whoever saw its record
	// say it ended and then takes the notices finds its notice among them.
	ending  sync.Mutex
	tasks   []*task
	notices []notice
	closed  bool
	wake    chan struct{}
	// tmp is the temporary folder made when Dir is empty.
	tmp string
}

// ErrNotAvailable is a task operation on a run that has no background tasks (a nil
// Manager).
var ErrNotAvailable = errors.New("background tasks are not available in this run")

// ErrNotFound is a task id the run does not know.
type ErrNotFound struct{ ID string }

func (e *ErrNotFound) Error() string { return "no background task " + e.ID }

func (m *Manager) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *Manager) scrub(s string) string { return m.Secrets.String(s) }

// scrubbing writes a task's output file scrubbed of the secrets, a secret cut in two by
// the pipe's reads included.
func (m *Manager) scrubbing(w io.Writer) io.WriteCloser { return scrub.NewWriter(w, m.Secrets) }

func (m *Manager) emit(p event.Payload) {
	if m.Emit != nil {
		m.Emit(p)
	}
}

// newID names a task: bash- and eight letters or digits, not yet used in the run.
func (m *Manager) newID() string {
	for {
		id := ""
		if m.NewID != nil {
			id = m.NewID()
		} else {
			id = "bash-" + randomName(8)
		}
		if m.find(id) == nil {
			return id
		}
	}
}

const nameAlphabet = "0123456789abcdefghijklmnopqrstuvwxyz"

// randomName is n letters or digits from the system's random source.
func randomName(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = nameAlphabet[int(b[i])%len(nameAlphabet)]
	}
	return string(b)
}

// find is the task named id; callers hold m.mu.
func (m *Manager) find(id string) *task {
	for _, t := range m.tasks {
		if t.id == id {
			return t
		}
	}
	return nil
}

// Start starts the task s describes and returns it as it is once started. A failure to
// start (too many tasks, the run ending, the launcher refusing) is an error for the model.
func (m *Manager) Start(s Spec) (Task, error) {
	if m == nil {
		return Task{}, ErrNotAvailable
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = m.Config.TaskTimeout
	}
	if timeout <= 0 {
		timeout = DefaultTaskTimeout
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return Task{}, errors.New("the run is ending: no new background task starts")
	}
	if n, limit := m.running(), m.maxRunning(); n >= limit {
		m.mu.Unlock()
		return Task{}, fmt.Errorf("the run has %d background task(s) running, the most it may have at once ([background] max_running_tasks); wait for one to end, or stop one with TaskStop", n)
	}
	t := &task{m: m, id: m.newID(), description: s.Description, command: m.scrub(s.Command),
		toolCallID: s.ToolCallID, timeout: timeout, keepAlive: m.Config.KeepAlive,
		status: StatusRunning, stop: make(chan stopRequest, 1), done: make(chan struct{})}
	// Held in the list from now on, so no other start takes its place under the limit.
	m.tasks = append(m.tasks, t)
	m.mu.Unlock()
	if err := t.start(s); err != nil {
		m.mu.Lock()
		m.tasks = removeTask(m.tasks, t)
		m.mu.Unlock()
		return Task{}, err
	}
	return t.view(), nil
}

func removeTask(ts []*task, t *task) []*task {
	for i, x := range ts {
		if x == t {
			return append(ts[:i:i], ts[i+1:]...)
		}
	}
	return ts
}

func (m *Manager) maxRunning() int {
	if m.Config.MaxRunning > 0 {
		return m.Config.MaxRunning
	}
	return DefaultMaxRunning
}

// running counts the tasks of this run that have not ended; callers hold m.mu.
func (m *Manager) running() int {
	n := 0
	for _, t := range m.tasks {
		if t.status == StatusRunning {
			n++
		}
	}
	return n
}

// lookup finds the task named id: ErrNotAvailable on a nil Manager, *ErrNotFound for an id
// the run does not know.
func (m *Manager) lookup(id string) (*task, error) {
	if m == nil {
		return nil, ErrNotAvailable
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.find(id); t != nil {
		return t, nil
	}
	return nil, &ErrNotFound{ID: id}
}

// Get returns the task named id.
func (m *Manager) Get(id string) (Task, error) {
	t, err := m.lookup(id)
	if err != nil {
		return Task{}, err
	}
	return t.view(), nil
}

// List returns the tasks, the most recently started first: only those still running when
// activeOnly, at most limit (0: all).
func (m *Manager) List(activeOnly bool, limit int) []Task {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	ts := append([]*task(nil), m.tasks...)
	m.mu.Unlock()
	var out []Task
	for i := len(ts) - 1; i >= 0; i-- {
		v := ts[i].view()
		if activeOnly && v.Status != StatusRunning {
			continue
		}
		out = append(out, v)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}

// Running returns the tasks still running, in the order they started.
func (m *Manager) Running() []Task {
	if m == nil {
		return nil
	}
	all := m.List(true, 0)
	for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
		all[i], all[j] = all[j], all[i]
	}
	return all
}

// State reports, at one instant, how many tasks are running and how many ended tasks the
// model has not been told of yet.
func (m *Manager) State() (running, untold int) {
	if m == nil {
		return 0, 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.running(), len(m.notices)
}

// taskDir makes the folder of the task named id.
func (m *Manager) taskDir(id string) (*os.File, error) {
	m.mu.Lock()
	root, rel := filepath.Dir(m.Dir), filepath.Join(filepath.Base(m.Dir), id)
	if m.Dir == "" {
		if m.tmp == "" {
			tmp, err := os.MkdirTemp("", "kimi-run-tasks-")
			if err != nil {
				m.mu.Unlock()
				return nil, fmt.Errorf("cannot make a folder for background tasks: %w", err)
			}
			m.tmp = tmp
		}
		root, rel = m.tmp, id
	}
	m.mu.Unlock()
	// Below the session's folder no link is followed: one a command planted there (a
	// session folder inside the work dir) would lead the task's files elsewhere.
	dir, err := beneath.MkdirAll(root, rel, 0o700)
	if err != nil {
		return nil, fmt.Errorf("cannot make the task's folder: %w", err)
	}
	return dir, nil
}

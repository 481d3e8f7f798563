// Package background runs a run's background tasks: commands the model starts with Shell's
// run_in_background, which go on while it works, as Kimi CLI's background tasks do. A task
// is a process started through the run's launcher (confined under the sandbox, with the
// run's scrubbed environment, in a process group of its own), with its output kept in a
// bounded file; it ends by itself, at its own timeout, when the model stops it (TaskStop),
// or with the run, unless the run keeps it alive ([background] keep_alive_on_exit).
//
// When a task ends, the manager writes a task_ended event (carrying Kimi CLI's
// Notification object) and keeps a notice for the model, which the root agent reads before
// its next step (Manager.TakeNotices). What happens after the last turn (the print-mode
// wait) is run/'s business; the manager offers what it needs: the running tasks, a wake-up
// when one ends, and StopAll.
package background

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/launch"
)

// Kimi CLI's defaults for the [background] keys kimi-run honours (its BackgroundConfig).
const (
	DefaultMaxRunning   = 4
	DefaultPreviewBytes = 30_000
	DefaultTailLines    = 20
	DefaultTailChars    = 3_000
	DefaultKillGrace    = 2 * time.Second
	DefaultTaskTimeout  = 900 * time.Second
	DefaultWaitCeiling  = 3600 * time.Second
)

// Limits of a task that are not settings.
const (
	// OutputLimit is how much of a task's output its file keeps; the rest is counted and
	// dropped, so a chatty server cannot fill the disk.
	OutputLimit = 64 << 20
	// EventOutputLimit is how much of a task's output task_output events carry; the rest is
	// only in the file. The stream is for watching a task start, not a copy of its log.
	EventOutputLimit = 64 << 10
	// MaxTimeout is the longest a task may ask to run (Kimi CLI's background limit: a day).
	MaxTimeout = 24 * time.Hour
	// noticesPerStep is how many ended tasks the model is told of before one step (as in
	// Kimi CLI); the rest wait for the next.
	noticesPerStep = 4
	// stopWait bounds how long a stop waits for a task's group to go after SIGKILL.
	stopWait = time.Second
)

// Config is the [background] keys kimi-run honours.
type Config struct {
	// MaxRunning is how many tasks may run at once (max_running_tasks).
	MaxRunning int
	// PreviewBytes is how much of a task's output TaskOutput shows, from its end
	// (read_max_bytes).
	PreviewBytes int
	// TailLines and TailChars bound the end of the output a notice quotes
	// (notification_tail_lines, notification_tail_chars).
	TailLines, TailChars int
	// KillGrace is the time between SIGTERM and SIGKILL when a task is stopped
	// (kill_grace_period_ms).
	KillGrace time.Duration
	// KeepAlive lets tasks outlive the run (keep_alive_on_exit).
	KeepAlive bool
	// TaskTimeout is how long a task may run when its Shell call gives no timeout
	// (agent_task_timeout_s).
	TaskTimeout time.Duration
	// WaitCeiling bounds the print-mode wait after the last turn (print_wait_ceiling_s);
	// run/ reads it.
	WaitCeiling time.Duration
}

// Defaults returns Kimi CLI's [background] defaults.
func Defaults() Config {
	return Config{MaxRunning: DefaultMaxRunning, PreviewBytes: DefaultPreviewBytes, TailLines: DefaultTailLines,
		TailChars: DefaultTailChars, KillGrace: DefaultKillGrace, TaskTimeout: DefaultTaskTimeout, WaitCeiling: DefaultWaitCeiling}
}

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
	// Scrub cleans what leaves the manager as text (events, notices) of credentials; nil
	// leaves it as it is.
	Scrub func(string) string
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

func (m *Manager) scrub(s string) string {
	if m.Scrub != nil {
		return m.Scrub(s)
	}
	return s
}

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

// Get returns the task named id.
func (m *Manager) Get(id string) (Task, error) {
	if m == nil {
		return Task{}, ErrNotAvailable
	}
	m.mu.Lock()
	t := m.find(id)
	m.mu.Unlock()
	if t == nil {
		return Task{}, &ErrNotFound{ID: id}
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

// Wake returns a channel that receives a value after a task ends (at most one waits): the
// print-mode wait sleeps on it.
func (m *Manager) Wake() <-chan struct{} {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.wakeLocked()
}

func (m *Manager) wakeLocked() chan struct{} {
	if m.wake == nil {
		m.wake = make(chan struct{}, 1)
	}
	return m.wake
}

// TakeNotices returns what the model has not been told yet of the tasks that ended, a few
// at a time (each Notice's Message a <notification> block for it), and forgets them: the
// root agent calls it before each step.
func (m *Manager) TakeNotices() []Notice {
	if m == nil {
		return nil
	}
	// An end being saved is published first (see ending).
	m.ending.Lock()
	defer m.ending.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	n := min(len(m.notices), noticesPerStep)
	if n == 0 {
		return nil
	}
	out := make([]Notice, n)
	for i, nt := range m.notices[:n] {
		out[i] = Notice{Message: nt.message, Notification: nt.notification}
	}
	m.notices = append(m.notices[:0:0], m.notices[n:]...)
	return out
}

// DropNotices forgets the notices the model has not read: after a turn that was to read
// them failed, so that the wait does not ask again and again.
func (m *Manager) DropNotices() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.notices = nil
	m.mu.Unlock()
}

// Stop stops the task named id (SIGTERM to its group, SIGKILL after the kill grace) and
// returns it once it has ended. A task that has ended already is returned as it is.
func (m *Manager) Stop(id, reason string) (Task, error) {
	if m == nil {
		return Task{}, ErrNotAvailable
	}
	m.mu.Lock()
	t := m.find(id)
	m.mu.Unlock()
	if t == nil {
		return Task{}, &ErrNotFound{ID: id}
	}
	t.requestStop(stopRequest{by: StoppedByTaskStop, reason: reason})
	t.awaitEnd()
	return t.view(), nil
}

// StopAll stops every running task for the same reason, all at once, and returns them as
// they ended (Task.StoppedBy says by whom). With keepAlive set, tasks kept alive for after
// the run are left running.
func (m *Manager) StopAll(by StoppedBy, reason string, keepAlive bool) []Task {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	var ts []*task
	for _, t := range m.tasks {
		if t.status == StatusRunning && !(keepAlive && t.keepAlive) {
			ts = append(ts, t)
		}
	}
	m.mu.Unlock()
	for _, t := range ts {
		t.requestStop(stopRequest{by: by, reason: reason})
	}
	out := make([]Task, len(ts))
	for i, t := range ts {
		t.awaitEnd()
		out[i] = t.view()
	}
	return out
}

// Close ends the run's tasks as the run ends: every running task is stopped, but those kept
// alive ([background] keep_alive_on_exit), and no task starts after it. It returns every
// task of the run, in start order, as they are then.
func (m *Manager) Close() []Task {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.StopAll(StoppedByRunEnd, "the run ended while it was running", true)
	m.mu.Lock()
	ts := append([]*task(nil), m.tasks...)
	tmp := m.tmp
	m.mu.Unlock()
	out := make([]Task, 0, len(ts))
	kept := false
	for _, t := range ts {
		if !t.earlier {
			v := t.view()
			kept = kept || v.Status == StatusRunning
			out = append(out, v)
		}
	}
	if tmp != "" && !kept {
		os.RemoveAll(tmp)
	}
	return out
}

// publish records t's end as one change (apply sets its fields), with the notice for the
// model, then wakes the wait: whoever sees no running task also sees every notice.
func (m *Manager) publish(apply func(), nt notice) {
	m.mu.Lock()
	apply()
	m.notices = append(m.notices, nt)
	w := m.wakeLocked()
	m.mu.Unlock()
	select {
	case w <- struct{}{}:
	default:
	}
}

// taskDir makes the folder of the task named id.
func (m *Manager) taskDir(id string) (string, error) {
	m.mu.Lock()
	root := m.Dir
	if root == "" {
		if m.tmp == "" {
			tmp, err := os.MkdirTemp("", "kimi-run-tasks-")
			if err != nil {
				m.mu.Unlock()
				return "", fmt.Errorf("cannot make a folder for background tasks: %w", err)
			}
			m.tmp = tmp
		}
		root = m.tmp
	}
	m.mu.Unlock()
	dir := filepath.Join(root, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("cannot make the task's folder: %w", err)
	}
	return dir, nil
}

// Wait waits until the task named id has ended, at most d (or until ctx ends), and returns
// it as it is then.
func (m *Manager) Wait(ctx context.Context, id string, d time.Duration) (Task, error) {
	if m == nil {
		return Task{}, ErrNotAvailable
	}
	m.mu.Lock()
	t := m.find(id)
	m.mu.Unlock()
	if t == nil {
		return Task{}, &ErrNotFound{ID: id}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.done:
	case <-timer.C:
	case <-ctx.Done():
		return Task{}, context.Cause(ctx)
	}
	return t.view(), nil
}

// Preview is the end of a task's output as TaskOutput shows it.
type Preview struct {
	// Text is the last bytes of the output (at most Config.PreviewBytes), scrubbed.
	Text string
	// Size is the output file's size; Truncated says Text is not all of it.
	Size      int64
	Truncated bool
}

// Preview reads the end of t's output.
func (m *Manager) Preview(t Task) Preview {
	n := m.Config.PreviewBytes
	if n <= 0 {
		n = DefaultPreviewBytes
	}
	b, size := readEnd(t.OutputPath, n)
	text := strings.TrimRight(strings.ToValidUTF8(string(b), "\uFFFD"), "\n")
	return Preview{Text: m.scrub(text), Size: size, Truncated: int64(len(b)) < size}
}

// Kill sends SIGKILL to every running task's group at once, without waiting, but those
// kept alive: the last act of a run that exits on a second signal.
func (m *Manager) Kill() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.tasks {
		if t.status == StatusRunning && !t.keepAlive && t.proc != nil {
			_ = t.proc.Signal(true)
		}
	}
}

package background

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/launch"
)

// Status is where a task is in its life, in Kimi CLI's words.
type Status string

// The statuses of a task. Only StatusRunning is not an end.
const (
	StatusRunning   Status = "running"
	StatusCompleted Status = "completed" // exited with status 0
	StatusFailed    Status = "failed"    // another status, a signal, or its timeout
	StatusKilled    Status = "killed"    // stopped (StoppedBy says by whom)
	StatusLost      Status = "lost"      // an earlier run started it and ended first
)

// StoppedBy says who stopped a killed task.
type StoppedBy string

// Who stops tasks.
const (
	StoppedByTaskStop    StoppedBy = "task_stop"    // the model, with TaskStop
	StoppedByWaitCeiling StoppedBy = "wait_ceiling" // the print-mode wait's ceiling
	StoppedByRunEnd      StoppedBy = "run_end"      // the run ended first
)

// Kind is the only kind of task kimi-run runs: a Shell command (Kimi CLI's "bash").
const Kind = "bash"

// Task is a task as it was at one moment.
type Task struct {
	ID          string
	Description string
	Command     string
	ToolCallID  string
	// Timeout is how long it may run.
	Timeout time.Duration
	Status  Status
	// ExitCode is its exit status; HasExit says it exited by itself (not by a signal).
	ExitCode int
	HasExit  bool
	// TimedOut says it was stopped at its timeout (its Status is then failed).
	TimedOut  bool
	StoppedBy StoppedBy
	// Reason says why it failed or was stopped.
	Reason string
	// Started and Ended are when it started and ended (zero while it runs).
	Started, Ended time.Time
	// OutputPath is its output file; OutputBytes what the file holds, DroppedBytes what
	// went past its limit.
	OutputPath                string
	OutputBytes, DroppedBytes int64
	// PID is its process id (and group's).
	PID int
	// KeepAlive says it outlives the run.
	KeepAlive bool
	// Earlier says an earlier run of the session started it.
	Earlier bool
}

// TerminalReason is the status, or timed_out for a task stopped at its timeout (Kimi CLI's
// terminal_reason).
func (t Task) TerminalReason() string {
	if t.TimedOut {
		return "timed_out"
	}
	return string(t.Status)
}

// Interrupted says the task did not end by itself: it was stopped, timed out or lost.
func (t Task) Interrupted() bool {
	return t.Status == StatusKilled || t.Status == StatusLost || t.TimedOut
}

// stopRequest asks a task's watcher to stop it.
type stopRequest struct {
	by     StoppedBy
	reason string
}

// task is one running or ended task. Fields below the line are guarded by m.mu.
type task struct {
	m                                    *Manager
	id, description, command, toolCallID string
	timeout                              time.Duration
	keepAlive, earlier                   bool
	outPath                              string
	proc                                 *launch.Proc
	out                                  *launch.Output
	lines                                *lineEvents
	stop                                 chan stopRequest
	done                                 chan struct{}

	status               Status
	exitCode             int
	hasExit, timedOut    bool
	stoppedBy            StoppedBy
	reason               string
	started, ended       time.Time
	outputBytes, dropped int64
	pid                  int
}

// view is the task as it is now.
func (t *task) view() Task {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	v := Task{ID: t.id, Description: t.description, Command: t.command, ToolCallID: t.toolCallID,
		Timeout: t.timeout, Status: t.status, ExitCode: t.exitCode, HasExit: t.hasExit, TimedOut: t.timedOut,
		StoppedBy: t.stoppedBy, Reason: t.reason, Started: t.started, Ended: t.ended, OutputPath: t.outPath,
		OutputBytes: t.outputBytes, DroppedBytes: t.dropped, PID: t.pid, KeepAlive: t.keepAlive, Earlier: t.earlier}
	if t.status == StatusRunning {
		// The file grows while it runs.
		if t.out != nil {
			v.OutputBytes, v.DroppedBytes = t.out.Size()
		} else if fi, err := os.Lstat(t.outPath); err == nil {
			v.OutputBytes = fi.Size()
		}
	}
	return v
}

// start starts the task's process with its output going to the task's file, records it,
// reports it and starts watching it.
func (t *task) start(s Spec) error {
	dirFile, err := t.m.taskDir(t.id)
	if err != nil {
		return err
	}
	defer dirFile.Close()
	dir := dirFile.Name()
	t.outPath = filepath.Join(dir, "output.log")
	const outFlags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	// Confined under the sandbox like every Shell command; ended with the run unless kept
	// alive, then outside the run's cgroup and parent-death signal (launch.Spec.Survive).
	spec := launch.Spec{Path: s.Path, Args: s.Args, Env: s.Env, Dir: t.m.WorkDir, Confine: true, Survive: t.keepAlive}
	var file *os.File
	if t.keepAlive {
		// A task that outlives the run writes its file itself: nobody would be left to copy
		// its output. Its output is then neither bounded nor streamed as events.
		if file, err = beneath.OpenFile(dirFile, "output.log", outFlags|os.O_APPEND, 0o600); err != nil {
			return fmt.Errorf("cannot make the task's output file: %w", err)
		}
		spec.Stdout, spec.Stderr = file, file
	} else {
		t.lines = newLineEvents(t)
		if file, err = beneath.OpenFile(dirFile, "output.log", outFlags, 0o600); err == nil {
			t.out, err = launch.OutputTee(file, OutputLimit, t.m.scrubbing, t.lines.write)
			file = nil // the output owns it
		}
		if err != nil {
			return fmt.Errorf("cannot make the task's output file: %w", err)
		}
		spec.Stdout, spec.Stderr = t.out.W, t.out.W
	}
	p, err := t.m.Launcher.Start(spec)
	if file != nil {
		file.Close()
	}
	if t.out != nil {
		t.out.Started()
	}
	if err != nil {
		if t.out != nil {
			t.out.Close()
		}
		beneath.RemoveAllPath(dir) // a task that never ran leaves no folder behind; no link followed
		return fmt.Errorf("cannot start the command: %w", err)
	}
	t.m.mu.Lock()
	t.proc, t.pid, t.started = p, p.Pid, t.m.now()
	t.m.mu.Unlock()
	t.m.save(t.view())
	t.m.emit(event.TaskStarted{TaskID: t.id, Kind: Kind, Description: t.m.scrub(t.description), Command: t.command,
		ToolCallID: t.toolCallID, TimeoutS: int(t.timeout.Round(time.Second) / time.Second), OutputPath: t.outPath,
		PID: p.Pid, KeepAlive: t.keepAlive})
	if t.lines != nil {
		t.lines.begin()
	}
	go t.watch()
	return nil
}

// requestStop asks the watcher to stop the task; a second request is not needed.
func (t *task) requestStop(r stopRequest) {
	select {
	case t.stop <- r:
	default:
	}
}

// awaitEnd waits until the task has ended and is recorded.
func (t *task) awaitEnd() { <-t.done }

func (t *task) grace() time.Duration {
	if g := t.m.Config.KillGrace; g > 0 {
		return g
	}
	return DefaultKillGrace
}

// watch waits for the task to end by itself, reach its timeout or be asked to stop, and
// records how it ended. Whatever the leader leaves in its group when it exits is stopped
// with it: a task is its whole group.
func (t *task) watch() {
	timer := time.NewTimer(t.timeout)
	defer timer.Stop()
	var req *stopRequest
	timedOut := false
	select {
	case <-t.proc.Done():
	case <-timer.C:
		timedOut = true
	case r := <-t.stop:
		req = &r
	}
	// SIGTERM to the group, SIGKILL to what is left after the grace: when stopped, and
	// for what a leader that exited left behind.
	launch.Stop(t.grace(), stopWait, t.proc)
	state := t.proc.Wait()
	var written, dropped int64
	if t.out != nil {
		// The group is gone; a process that left it (setsid) may still hold the pipe, and
		// gets no more than the grace.
		select {
		case <-t.out.Done():
		case <-time.After(t.grace()):
		}
		t.out.Close()
		t.lines.flush()
		written, dropped = t.out.Size()
	} else if fi, err := os.Lstat(t.outPath); err == nil {
		written = fi.Size()
	}
	t.finish(state, req, timedOut, written, dropped)
}

// finish records the task's end, reports it and tells the model.
func (t *task) finish(state launch.State, req *stopRequest, timedOut bool, written, dropped int64) {
	end := t.m.now()
	status, by, reason := StatusFailed, StoppedBy(""), ""
	switch {
	case timedOut:
		reason = fmt.Sprintf("it ran past its timeout of %s and was stopped", formatSeconds(t.timeout))
	case req != nil:
		status, by, reason = StatusKilled, req.by, req.reason
	case state.Success():
		status = StatusCompleted
	case state.Exited():
		reason = fmt.Sprintf("it exited with status %d", state.ExitCode())
	default:
		reason = fmt.Sprintf("it was ended by a signal (%s)", state)
	}
	t.m.mu.Lock()
	started := t.started
	t.m.mu.Unlock()
	v := Task{ID: t.id, Description: t.description, Command: t.command, ToolCallID: t.toolCallID, Timeout: t.timeout,
		Status: status, ExitCode: state.ExitCode(), HasExit: state.Exited(), TimedOut: timedOut, StoppedBy: by,
		Reason: reason, Started: started, Ended: end, OutputPath: t.outPath, OutputBytes: written, DroppedBytes: dropped,
		PID: t.pid, KeepAlive: t.keepAlive}
	t.m.conclude(t, v)
}

// conclude makes v the task's final state: it is reported with its notification, saved,
// and told to the model (the last two as one, for TakeNotices); then whoever waits for
// the task's end goes on.
func (m *Manager) conclude(t *task, v Task) {
	n := m.notification(v)
	nt := notice{message: m.noticeText(v, n), notification: n}
	// The event first, then the record: whoever sees the record say the task ended (a
	// command of the model's, a test) knows the event is out.
	m.emit(event.TaskEnded{TaskID: v.ID, Kind: Kind, Description: m.scrub(v.Description), Status: string(v.Status),
		TerminalReason: v.TerminalReason(), ExitCode: exitCode(v), StoppedBy: string(v.StoppedBy), Reason: m.scrub(v.Reason),
		DurationMS: duration(v).Milliseconds(), OutputBytes: v.OutputBytes, DroppedBytes: v.DroppedBytes, Notification: n})
	m.ending.Lock()
	defer m.ending.Unlock()
	m.save(v)
	m.publish(func() {
		t.status, t.exitCode, t.hasExit, t.timedOut = v.Status, v.ExitCode, v.HasExit, v.TimedOut
		t.stoppedBy, t.reason, t.ended = v.StoppedBy, v.Reason, v.Ended
		t.outputBytes, t.dropped = v.OutputBytes, v.DroppedBytes
	}, nt)
	close(t.done)
}

// exitCode is v's exit status for an event, nil when it did not exit by itself.
func exitCode(v Task) *int {
	if !v.HasExit {
		return nil
	}
	c := v.ExitCode
	return &c
}

// duration is how long v ran, 0 when unknown.
func duration(v Task) time.Duration {
	if v.Started.IsZero() || v.Ended.Before(v.Started) {
		return 0
	}
	return v.Ended.Sub(v.Started)
}

// formatSeconds writes d as Kimi CLI's settings do: whole seconds.
func formatSeconds(d time.Duration) string {
	return fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
}

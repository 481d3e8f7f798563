package background

// How tasks end: stopped by the model (Stop) or the run (StopAll, Close, Kill), or waited
// for (Wait).

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/event"
)

// Stop stops the task named id (SIGTERM to its group, SIGKILL after the kill grace) and
// returns it once it has ended. A task that has ended already is returned as it is.
func (m *Manager) Stop(id, reason string) (Task, error) {
	t, err := m.lookup(id)
	if err != nil {
		return Task{}, err
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

// Wait waits until the task named id has ended, at most d (or until ctx ends), and returns
// it as it is then.
func (m *Manager) Wait(ctx context.Context, id string, d time.Duration) (Task, error) {
	t, err := m.lookup(id)
	if err != nil {
		return Task{}, err
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

// End is Close as the run's result reports it: every task of the run, with a warning
// naming those stopped because the run ended and those kept alive
// ([background] keep_alive_on_exit).
func (m *Manager) End() []event.BackgroundTask {
	if m == nil {
		return nil
	}
	ts := m.Close()
	out := make([]event.BackgroundTask, len(ts))
	var kept, stopped []string
	for i, t := range ts {
		out[i] = event.BackgroundTask{TaskID: t.ID, Description: t.Description, Status: string(t.Status), TimedOut: t.TimedOut,
			StoppedBy: string(t.StoppedBy), Reason: t.Reason, OutputPath: t.OutputPath, ExitCode: exitCode(t)}
		switch {
		case t.Status == StatusRunning:
			kept = append(kept, fmt.Sprintf("%s (pid %d)", t.ID, t.PID))
			out[i].PID = t.PID
		case t.StoppedBy == StoppedByRunEnd:
			stopped = append(stopped, t.ID)
		}
	}
	if len(stopped) > 0 {
		m.warn(fmt.Sprintf("stopped %d background task(s) still running as the run ended: %s", len(stopped), strings.Join(stopped, ", ")))
	}
	if len(kept) > 0 {
		m.warn(fmt.Sprintf("left %d background task(s) running after the run ([background] keep_alive_on_exit): %s", len(kept), strings.Join(kept, ", ")))
	}
	return out
}

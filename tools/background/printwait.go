package background

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/event"
)

// tasksEndedPrompt re-enters the model after its last turn when background tasks have
// ended: the notices of their ends follow it (the agent's inbox). Kimi CLI's protocol, in
// kimi-run's words.
const tasksEndedPrompt = "<system-reminder>Background tasks you started have ended; the notifications below say how. Act on their results as the task needs, then finish with your final answer.</system-reminder>"

// Turner runs one more agent turn (ralph.Turner): the print-mode wait reads the tasks'
// ends through it.
type Turner interface {
	Turn(ctx context.Context, spec event.TurnSpec) (event.TurnOutcome, error)
}

// OverdueError ends a run whose background tasks were still running when the wait for
// them reached [background] print_wait_ceiling_s: they were stopped, and the model was
// asked to sum up (exit 1, terminal reason background_timeout).
type OverdueError struct {
	Ceiling time.Duration
	Stopped []string // the tasks' ids
}

func (e *OverdueError) Error() string {
	return fmt.Sprintf("background tasks were still running after the run had waited %s for them ([background] print_wait_ceiling_s): stopped %s",
		formatWait(e.Ceiling), strings.Join(e.Stopped, ", "))
}

func formatWait(d time.Duration) string {
	return fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
}

// AwaitAll is print mode's wait for background tasks, after the last turn (or Ralph loop,
// or flow) ended well: while tasks run, it waits for one to end; whenever some have ended,
// it runs one more turn through t, where the model reads their notices and acts on them
// (tasks that turn starts are waited for too). While it waits it emits task_wait every
// heartbeat (--heartbeat), and at the first one it runs a turn that lists the tasks still
// running, once, so the model can stop what it no longer needs. It ends when no task runs
// and the model has read every notice; at [background] print_wait_ceiling_s it stops the
// tasks, asks the model to sum up in one more turn, and returns an *OverdueError; ctx
// ends it as it ends any turn. Tasks kept alive after the run are not waited for (Kimi
// CLI does the same). A turn that fails is the wait's error, unless outlive says the wait
// goes on after it (the provider failed, after its retries: the run's own task was done).
// last is the last final text the turns gave and, when a turn stopped short of an answer
// (a limit), why: the wait ends there.
func (m *Manager) AwaitAll(ctx context.Context, t Turner, heartbeat time.Duration, outlive func(error) bool) (last event.TurnOutcome, err error) {
	if m == nil || m.Config.KeepAlive {
		return last, nil
	}
	ceiling := cmp.Or(m.Config.WaitCeiling, DefaultWaitCeiling)
	// A task ends at its own timeout, so the ceiling is all the wait needs as a bound.
	began := time.Now()
	deadline := time.NewTimer(ceiling)
	defer deadline.Stop()
	// Every heartbeat the wait says what it waits for; at the first beat (at 15 s with
	// --heartbeat 0) the model is told, once, which tasks still run, so that it may stop
	// what it no longer needs (a dev server) rather than hold the run to the ceiling.
	tick := time.NewTicker(cmp.Or(heartbeat, 15*time.Second))
	defer tick.Stop()
	overdue, told := false, false
	for {
		// Ended tasks are read before the ceiling is looked at: a task that ended just
		// before it is not reported stopped.
		running, untold := m.State()
		if untold > 0 {
			if done, terr := m.reenter(ctx, t, tasksEndedPrompt, &last, outlive); done {
				return last, terr
			}
			continue
		}
		if running == 0 {
			return last, nil
		}
		if overdue {
			break
		}
		select {
		case <-m.Wake():
		case <-tick.C:
			if heartbeat > 0 {
				m.emit(taskWait(m.Running(), time.Since(began), ceiling))
			}
			if !told {
				told = true
				if done, terr := m.reenter(ctx, t, stillRunningPrompt(m.Running(), ceiling), &last, outlive); done {
					return last, terr
				}
			}
		case <-deadline.C:
			overdue = true
		case <-ctx.Done():
			return last, context.Cause(ctx)
		}
	}
	return m.overdue(ctx, t, ceiling, last, outlive)
}

// overdue stops the tasks still running at the ceiling and asks the model to sum up.
func (m *Manager) overdue(ctx context.Context, t Turner, ceiling time.Duration, last event.TurnOutcome, outlive func(error) bool) (event.TurnOutcome, error) {
	why := fmt.Sprintf("the run stopped waiting for it after %s ([background] print_wait_ceiling_s)", formatWait(ceiling))
	stopped := m.StopAll(StoppedByWaitCeiling, why, false)
	ids := make([]string, len(stopped))
	lines := make([]string, len(stopped))
	for i, s := range stopped {
		ids[i] = s.ID
		state := "stopped"
		if s.StoppedBy != StoppedByWaitCeiling {
			state = "had ended by itself: " + string(s.Status)
		}
		lines[i] = fmt.Sprintf("  - %s: %s (%s)", s.ID, s.Description, state)
	}
	m.warn(fmt.Sprintf("timed out waiting for background tasks (%s): stopped %d", formatWait(ceiling), len(stopped)))
	prompt := "<system-reminder>\nThe run waited " + formatWait(ceiling) + " for its background tasks ([background] print_wait_ceiling_s) and has stopped those still running:\n" +
		strings.Join(lines, "\n") + "\nStart nothing new. Say what was done and what was not, and give your final answer.\n</system-reminder>"
	more, terr := t.Turn(ctx, event.TurnSpec{Prompt: prompt})
	if terr != nil && !m.readAgain(ctx, terr, outlive) {
		return last, terr
	}
	if terr != nil {
		m.warn(fmt.Sprintf("the model could not sum up after the background tasks were stopped: %v", terr))
	}
	last.FinalText = cmp.Or(more.FinalText, last.FinalText)
	return last, &OverdueError{Ceiling: ceiling, Stopped: ids}
}

// reenter runs one more turn after the last one, with prompt: the model reads what its
// background tasks did, or which still run. done says the wait is over, with err as its
// error: the turn failed, or ended at a limit (last.StopReason), which then decides the
// outcome.
func (m *Manager) reenter(ctx context.Context, t Turner, prompt string, last *event.TurnOutcome, outlive func(error) bool) (done bool, err error) {
	more, terr := t.Turn(ctx, event.TurnSpec{Prompt: prompt})
	if terr != nil && !m.readAgain(ctx, terr, outlive) {
		return true, terr
	}
	if terr != nil {
		m.DropNotices()
		return false, nil
	}
	last.FinalText = cmp.Or(more.FinalText, last.FinalText)
	if more.StopReason != event.StopCompleted {
		last.StopReason = more.StopReason
		return true, nil
	}
	return false, nil
}

// readAgain reports whether a turn that was to read the tasks' results failed in a way the
// wait outlives, as in Kimi CLI (outlive: the provider failed, after its retries), with a
// warning that says what was not read. A cancelled ctx (a signal, --timeout) never is.
func (m *Manager) readAgain(ctx context.Context, err error, outlive func(error) bool) bool {
	if context.Cause(ctx) != nil || !outlive(err) {
		return false
	}
	m.warn(fmt.Sprintf("reading the background tasks' results failed, and the run goes on without it: %v", err))
	return true
}

func (m *Manager) warn(msg string) { m.emit(event.Warning{Message: msg}) }

// stillRunningPrompt tells the model, once, that its turn ended with background tasks
// still running, which the run will wait for up to ceiling.
func stillRunningPrompt(tasks []Task, ceiling time.Duration) string {
	lines := make([]string, len(tasks))
	for i, v := range tasks {
		lines[i] = fmt.Sprintf("  - %s: %s (running %s)", v.ID, v.Description, formatWait(time.Since(v.Started)))
	}
	return "<system-reminder>\nYour turn has ended, and these background tasks you started are still running:\n" + strings.Join(lines, "\n") +
		"\nThe run waits for them for up to " + formatWait(ceiling) + " before it stops them. Stop with TaskStop those the task does not need (a server, a watcher); " +
		"if their results matter, end your turn and the run waits for them. Then give your final answer.\n</system-reminder>"
}

// taskWait is the heartbeat event of the wait for tasks.
func taskWait(tasks []Task, waited, ceiling time.Duration) event.TaskWait {
	ev := event.TaskWait{WaitedMS: waited.Milliseconds(), CeilingMS: ceiling.Milliseconds(), Tasks: make([]event.WaitingTask, len(tasks))}
	for i, v := range tasks {
		ev.Tasks[i] = event.WaitingTask{TaskID: v.ID, Description: v.Description, ElapsedMS: time.Since(v.Started).Milliseconds()}
	}
	return ev
}

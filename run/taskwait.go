package run

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/ralph"
	"github.com/kimi-run/kimi-run/tools/background"
)

// tasksEndedPrompt re-enters the model after its last turn when background tasks have
// ended: the notices of their ends follow it (the agent's inbox). Kimi CLI's protocol, in
// kimi-run's words.
const tasksEndedPrompt = "<system-reminder>Background tasks you started have ended; the notifications below say how. Act on their results as the task needs, then finish with your final answer.</system-reminder>"

// tasksOverdueError ends a run whose background tasks were still running when the wait for
// them reached [background] print_wait_ceiling_s: they were stopped, and the model was
// asked to sum up (exit 1, terminal reason background_timeout).
type tasksOverdueError struct {
	ceiling time.Duration
	stopped []string
}

func (e *tasksOverdueError) Error() string {
	return fmt.Sprintf("background tasks were still running after the run had waited %s for them ([background] print_wait_ceiling_s): stopped %s",
		formatWait(e.ceiling), joinList(e.stopped))
}

func formatWait(d time.Duration) string {
	return fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
}

// waitForTasks is print mode's wait for background tasks, after the last turn (or Ralph
// loop, or flow) ended well: while tasks run, it waits for one to end; whenever some have
// ended, it runs one more turn through t, where the model reads their notices and acts on
// them (tasks that turn starts are waited for too). While it waits it emits task_wait every
// --heartbeat, and at the first one it runs a turn that lists the tasks still running, once,
// so the model can stop what it no longer needs. It ends when no task runs and the model
// has read every notice; at [background] print_wait_ceiling_s it stops the tasks, asks the
// model to sum up in one more turn, and ends the run with exit 1; --timeout and the signals
// end it as they end any turn. Tasks kept alive after the run are not waited for (Kimi CLI
// does the same), nor are they in a conversation on stdin, where the next message may
// come first.
func (r *runState) waitForTasks(ctx context.Context, t ralph.Turner, out outcome, err error) (outcome, error) {
	m := r.tasks
	if m == nil || err != nil || r.s.Background.KeepAlive || outcomeVerdict(out).code != ExitOK {
		return out, err
	}
	ceiling := r.s.Background.WaitCeiling
	if ceiling <= 0 {
		ceiling = background.DefaultWaitCeiling
	}
	// A task ends at its own timeout, so the ceiling is all the wait needs as a bound.
	began := time.Now()
	deadline := time.NewTimer(ceiling)
	defer deadline.Stop()
	// Every --heartbeat the wait says what it waits for; at the first beat (at 15 s with
	// --heartbeat 0) the model is told, once, which tasks still run, so that it may stop
	// what it no longer needs (a dev server) rather than hold the run to the ceiling.
	every := r.s.Flags.Heartbeat
	tick := time.NewTicker(cmp.Or(every, 15*time.Second))
	defer tick.Stop()
	overdue, told := false, false
	for {
		// Ended tasks are read before the ceiling is looked at: a task that ended just
		// before it is not reported stopped.
		running, untold := m.State()
		if untold > 0 {
			if done, terr := r.reenter(ctx, t, tasksEndedPrompt, &out); done {
				return out, terr
			}
			continue
		}
		if running == 0 {
			return out, nil
		}
		if overdue {
			break
		}
		select {
		case <-m.Wake():
		case <-tick.C:
			if every > 0 {
				r.emit(taskWait(m.Running(), time.Since(began), ceiling))
			}
			if !told {
				told = true
				if done, terr := r.reenter(ctx, t, stillRunningPrompt(m.Running(), ceiling), &out); done {
					return out, terr
				}
			}
		case <-deadline.C:
			overdue = true
		case <-ctx.Done():
			return out, context.Cause(ctx)
		}
	}
	why := fmt.Sprintf("the run stopped waiting for it after %s ([background] print_wait_ceiling_s)", formatWait(ceiling))
	stopped := m.StopAll(background.StoppedByWaitCeiling, why, false)
	ids := make([]string, len(stopped))
	lines := make([]string, len(stopped))
	for i, s := range stopped {
		ids[i] = s.ID
		state := "stopped"
		if s.StoppedBy != background.StoppedByWaitCeiling {
			state = "had ended by itself: " + string(s.Status)
		}
		lines[i] = fmt.Sprintf("  - %s: %s (%s)", s.ID, s.Description, state)
	}
	r.warn(fmt.Sprintf("timed out waiting for background tasks (%s): stopped %d", formatWait(ceiling), len(stopped)))
	prompt := "<system-reminder>\nThe run waited " + formatWait(ceiling) + " for its background tasks ([background] print_wait_ceiling_s) and has stopped those still running:\n" +
		strings.Join(lines, "\n") + "\nStart nothing new. Say what was done and what was not, and give your final answer.\n</system-reminder>"
	more, terr := t.Turn(ctx, event.TurnSpec{Prompt: prompt})
	if terr != nil && !r.readAgain(ctx, terr) {
		return out, terr
	}
	if terr != nil {
		r.warn(fmt.Sprintf("the model could not sum up after the background tasks were stopped: %v", terr))
	}
	if more.FinalText != "" {
		out.finalText = more.FinalText
	}
	return out, &tasksOverdueError{ceiling: ceiling, stopped: ids}
}

// reenter runs one more turn after the last one, with prompt: the model reads what its
// background tasks did, or which still run. done says the wait is over, with err as the
// run's error: the turn failed, or ended at a limit, which then decides the outcome.
func (r *runState) reenter(ctx context.Context, t ralph.Turner, prompt string, out *outcome) (done bool, err error) {
	more, terr := t.Turn(ctx, event.TurnSpec{Prompt: prompt})
	if terr != nil && !r.readAgain(ctx, terr) {
		return true, terr
	}
	if terr != nil {
		r.tasks.DropNotices()
		return false, nil
	}
	if more.FinalText != "" {
		out.finalText = more.FinalText
	}
	if more.StopReason != event.StopCompleted {
		out.flow, out.stop = false, more.StopReason
		return true, nil
	}
	return false, nil
}

// stillRunningPrompt tells the model, once, that its turn ended with background tasks
// still running, which the run will wait for up to ceiling.
func stillRunningPrompt(tasks []background.Task, ceiling time.Duration) string {
	lines := make([]string, len(tasks))
	for i, v := range tasks {
		lines[i] = fmt.Sprintf("  - %s: %s (running %s)", v.ID, v.Description, formatWait(time.Since(v.Started)))
	}
	return "<system-reminder>\nYour turn has ended, and these background tasks you started are still running:\n" + strings.Join(lines, "\n") +
		"\nThe run waits for them for up to " + formatWait(ceiling) + " before it stops them. Stop with TaskStop those the task does not need (a server, a watcher); " +
		"if their results matter, end your turn and the run waits for them. Then give your final answer.\n</system-reminder>"
}

// taskWait is the heartbeat event of the wait for tasks.
func taskWait(tasks []background.Task, waited, ceiling time.Duration) event.TaskWait {
	ev := event.TaskWait{WaitedMS: waited.Milliseconds(), CeilingMS: ceiling.Milliseconds(), Tasks: make([]event.WaitingTask, len(tasks))}
	for i, v := range tasks {
		ev.Tasks[i] = event.WaitingTask{TaskID: v.ID, Description: v.Description, ElapsedMS: time.Since(v.Started).Milliseconds()}
	}
	return ev
}

// readAgain reports whether a turn that was to read the tasks' results failed in a way the
// wait outlives, as in Kimi CLI: the provider failed (after its retries); the run's own
// task was done, so its outcome stands, and a warning says what was not read. A signal,
// --timeout, a budget or any other failure ends the run as it would end any turn.
func (r *runState) readAgain(ctx context.Context, err error) bool {
	if context.Cause(ctx) != nil {
		return false
	}
	switch v := judge(outcome{}, err, nil); {
	case v.reason == "transient", v.err != nil && v.err.Kind == "provider":
		r.warn(fmt.Sprintf("reading the background tasks' results failed, and the run goes on without it: %v", err))
		return true
	}
	return false
}

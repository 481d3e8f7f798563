package run

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/hooks"
	"github.com/kimi-run/kimi-run/tools/background"
)

// newTasks makes the run's background tasks (tools/background): their folders in the
// session's (with --no-session a temporary one, made for the first task), started through
// the run's launcher like every Shell command.
func (r *runState) newTasks() *background.Manager {
	dir := ""
	if r.session.File != nil {
		dir = filepath.Join(filepath.Dir(r.session.File.Path()), "tasks")
	}
	return &background.Manager{Launcher: r.launch, Dir: dir, WorkDir: r.s.WorkDir, Config: r.s.Background,
		Emit: r.emit, Secrets: r.secrets}
}

// taskInbox is the main agent's inbox (agent.Config.Inbox): the notices of the tasks that
// ended since its last step, each of which fires the Notification hooks first, as Kimi CLI
// fires them when it hands a notification to the model.
func taskInbox(m *background.Manager, eng *hooks.Engine, scrub func(string) string) func(context.Context) []string {
	return func(ctx context.Context) []string {
		notices := m.TakeNotices()
		out := make([]string, len(notices))
		for i, n := range notices {
			nf := n.Notification
			eng.Fire(ctx, hooks.Notification, nf.Type, map[string]any{"sink": "llm", "notification_type": nf.Type,
				"title": scrub(nf.Title), "body": scrub(nf.Body), "severity": nf.Severity})
			out[i] = n.Message
		}
		return out
	}
}

// endTasks ends the run's background tasks as the run ends: those still running are
// stopped, but those kept alive ([background] keep_alive_on_exit), which a warning names.
// It returns every task of the run for the result.
func (r *runState) endTasks() []event.BackgroundTask {
	if r.tasks == nil {
		return nil
	}
	ts := r.tasks.Close()
	out := make([]event.BackgroundTask, len(ts))
	var kept, stopped []string
	for i, t := range ts {
		out[i] = backgroundTask(t)
		switch {
		case t.Status == background.StatusRunning:
			kept = append(kept, fmt.Sprintf("%s (pid %d)", t.ID, t.PID))
		case t.StoppedBy == background.StoppedByRunEnd:
			stopped = append(stopped, t.ID)
		}
	}
	if len(stopped) > 0 {
		r.warn(fmt.Sprintf("stopped %d background task(s) still running as the run ended: %s", len(stopped), joinList(stopped)))
	}
	if len(kept) > 0 {
		r.warn(fmt.Sprintf("left %d background task(s) running after the run ([background] keep_alive_on_exit): %s", len(kept), joinList(kept)))
	}
	return out
}

// backgroundTask is t as the result lists it.
func backgroundTask(t background.Task) event.BackgroundTask {
	b := event.BackgroundTask{TaskID: t.ID, Description: t.Description, Status: string(t.Status), TimedOut: t.TimedOut,
		StoppedBy: string(t.StoppedBy), Reason: t.Reason, OutputPath: t.OutputPath}
	if t.HasExit {
		code := t.ExitCode
		b.ExitCode = &code
	}
	if t.Status == background.StatusRunning {
		b.PID = t.PID
	}
	return b
}

func joinList(items []string) string {
	out := ""
	for i, s := range items {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

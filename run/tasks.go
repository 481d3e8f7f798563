package run

import (
	"cmp"
	"context"
	"path/filepath"

	"github.com/kimi-run/kimi-run/hooks"
	"github.com/kimi-run/kimi-run/ralph"
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

// waitForTasks is print mode's wait for background tasks (background.Manager.AwaitAll)
// after a run that ended well; a turn it runs that fails the provider is outlived. Not in
// a conversation on stdin, where the next message may come first.
func (r *runState) waitForTasks(ctx context.Context, t ralph.Turner, out outcome, err error) (outcome, error) {
	if err != nil || outcomeVerdict(out).code != ExitOK {
		return out, err
	}
	more, err := r.tasks.AwaitAll(ctx, t, r.s.Flags.Heartbeat, func(err error) bool {
		v := judge(outcome{}, err, nil)
		return v.reason == "transient" || v.err != nil && v.err.Kind == "provider"
	})
	out.finalText = cmp.Or(more.FinalText, out.finalText)
	if more.StopReason != "" {
		out.flow, out.stop = false, more.StopReason
	}
	return out, err
}

package run

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/session"
	"github.com/kimi-run/kimi-run/tools"
)

// sessionRoot is session.Root in the run's environment.
func sessionRoot(sessionDir, workDir string, env config.Env) (string, error) {
	return session.Root(sessionDir, workDir, env.Getenv)
}

// openSession opens the session the flags ask for (session.OpenRun), takes it back to a
// checkpoint when --rewind asks, says which session --continue resumes, and records the
// run in it.
func (r *runState) openSession(ctx context.Context, prompt string) error {
	s, f := r.s, &r.s.Flags
	if !f.NoSession { // config.Resolve refused it with --session or --continue
		sess, err := session.OpenRun(ctx, session.Want{Dir: f.SessionDir, WorkDir: s.WorkDir, AddDirs: f.AddDir, Getenv: s.Env.Getenv,
			ID: s.Session, Continue: f.Continue, Fork: f.ForkSession, Wait: f.SessionWait, Scrub: r.secrets.String, Warn: r.warnEarly})
		if err != nil {
			return err
		}
		r.session, r.sessionID = sess, sess.ID
		r.res.add(sess.Close)
	}
	p := &r.session
	if f.Rewind != nil {
		if err := p.Rewind(ctx, *f.Rewind, f.RewindFiles, r.guard.sandbox.CanWrite, r.warnEarly); err != nil {
			return err
		}
	}
	switch {
	case p.Skipped != "":
		r.warnEarly(p.Notice + "; " + p.Skipped)
	case p.Notice != "" && !s.Output.Quiet:
		fmt.Fprintf(r.sio.Stderr, "kimi-run: %s\n", p.Notice)
	}
	if strings.TrimSpace(prompt) == "" && f.Flow != "" {
		prompt = "flow " + f.Flow // what the session listing shows as the run's prompt
	}
	if err := p.Begin(prompt, s.WorkDir, time.Now()); err != nil {
		r.warnEarly(err.Error())
	}
	return nil
}

// rewindEvent reports what --rewind did, once the event stream is open.
func rewindEvent(rw *session.Rewound) event.SessionRewind {
	ev := event.SessionRewind{Checkpoint: rw.Checkpoint, Backup: rw.Backup}
	for _, f := range rw.Files {
		ev.Files = append(ev.Files, event.RewoundFile{Path: f.Path, Action: f.Action, Reason: f.Why, Backup: f.Backup, ChangedOutside: f.ChangedOutside})
	}
	return ev
}

// fileChanges is tools.Env.Changes: the session's before-images, nil without them (not a
// nil *Journal in an interface).
func fileChanges(j *session.Journal) tools.FileChanges {
	if j == nil {
		return nil
	}
	return j
}

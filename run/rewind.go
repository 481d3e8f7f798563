package run

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/session"
	"github.com/kimi-run/kimi-run/tools"
)

// rewound is what --rewind did to the session (issue 32 #4).
type rewound struct {
	checkpoint int
	// backup is the file the conversation as it was is kept in.
	backup string
	files  []session.FileRewind
}

// keepFiles starts keeping the file tools' before-images in the session's folder. A
// session whose folder cannot hold them goes on without them, with a warning: a later
// --rewind-files will say which files it cannot put back.
func (r *runState) keepFiles() {
	p := &r.session
	if p.session == nil {
		return
	}
	roots := []string{r.s.WorkDir}
	for _, d := range r.s.Flags.AddDir {
		if abs, err := filepath.Abs(d); err == nil {
			roots = append(roots, abs)
		}
	}
	j, err := p.session.KeepFiles(func(s string) bool { return r.secrets.String(s) != s }, roots...)
	if err != nil {
		r.warnEarly(fmt.Sprintf("session %s: the file tools' changes cannot be undone by a later --rewind-files: %v", p.id, err))
		return
	}
	p.journal = j
}

// changes is tools.Env.Changes: the session's before-images, nil without them.
func (p *sessionPlan) changes() tools.FileChanges {
	if p.journal == nil {
		return nil // not a nil *Journal in an interface
	}
	return p.journal
}

// rewind takes the session back to checkpoint --rewind: the files first, when
// --rewind-files asks (what they held then is put back; what they hold now is kept), then
// the conversation (what came after is kept in a backup file). Files first: a crash
// between the two leaves the conversation whole, and the same command does it again.
func (r *runState) rewind(ctx context.Context) error {
	f, p := &r.s.Flags, &r.session
	if f.Rewind == nil {
		return nil
	}
	id := *f.Rewind
	if p.session == nil || p.restored == nil {
		return usagef("--rewind %d: session %s has no conversation to rewind", id, p.id)
	}
	if taken := len(p.restored.Checkpoints); id >= taken {
		return usagef("--rewind %d: session %s has checkpoints 0 to %d (kimi-run --show-session %s lists them)", id, p.id, taken-1, p.id)
	}
	rw := &rewound{checkpoint: id}
	if f.RewindFiles {
		if p.journal == nil {
			return usagef("--rewind-files: session %s keeps no before-images of its files here", p.id)
		}
		var err error
		rw.files, err = p.journal.RewindFiles(ctx, id, r.guard.sandbox.CanWrite)
		if err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return fmt.Errorf("--rewind-files: %w", err)
		}
		// Each file not put back is a warning as well as a line of the event: the rewind
		// goes on with the rest, and the person who asked for it reads why.
		for _, f := range rw.files {
			if f.Action == session.NotRestored {
				r.warnEarly(fmt.Sprintf("--rewind-files: %s was not put back: %s", f.Path, f.Why))
			}
		}
	}
	restored, err := p.session.Revert(id)
	if err != nil {
		var ue *session.UnknownCheckpointError
		if errors.As(err, &ue) {
			return usagef("--rewind %d: session %s has checkpoints 0 to %d", id, p.id, ue.Taken-1)
		}
		return fmt.Errorf("--rewind %d: %w", id, err)
	}
	rw.backup = restored.Rotated
	p.restored = restored
	p.rewound = rw
	return nil
}

// rewindEvent reports what rewind did, once the event stream is open.
func (rw *rewound) event() event.SessionRewind {
	ev := event.SessionRewind{Checkpoint: rw.checkpoint, Backup: rw.backup}
	for _, f := range rw.files {
		ev.Files = append(ev.Files, event.RewoundFile{Path: f.Path, Action: f.Action, Reason: f.Why, Backup: f.Backup, ChangedOutside: f.ChangedOutside})
	}
	return ev
}

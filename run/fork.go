package run

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/kimi-run/kimi-run/session"
)

// checkFork checks, before anything is made, that session src can be forked into the new
// session id: src has a conversation, and id is free. When id is a fork of src already, made
// by an earlier run of the same command that was killed, again reports that the run
// continues it rather than fork anew: a retried job goes on where it stopped.
func checkFork(root, src, id string) (again bool, err error) {
	if !session.ValidID(src) {
		return false, usagef("invalid session id %q for --fork-session: use letters, digits, '.', '_' and '-'", src)
	}
	if _, err := os.Stat(filepath.Join(root, src, session.ContextFile)); err != nil {
		return false, usagef("--fork-session %s: there is no such session in %s (kimi-run --list-sessions lists them)", src, root)
	}
	if _, err := os.Lstat(filepath.Join(root, id)); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if m, err := session.ReadMeta(filepath.Join(root, id)); err == nil && m.ForkedFrom == src {
		return true, nil
	}
	return false, usagef("--fork-session %s --session %s: session %s exists already, and is not a fork of %s; a fork needs a new name", src, id, id, src)
}

// fork copies session src into the plan's new session folder dir (made and locked), under
// src's lock taken shared, so that no run writes src while it is copied, while other forks
// of src copy it too: a run holding it makes the fork fail as busy (exit 75), or wait with
// --session-wait. src is not changed.
func (p *sessionPlan) fork(ctx context.Context, src, dir string, wait time.Duration, notice func(string)) error {
	srcDir := filepath.Join(p.root, src)
	lock, err := session.TakeSharedLock(ctx, srcDir, src, wait, notice)
	if err != nil {
		var be *session.BusyError
		if errors.As(err, &be) || ctx.Err() != nil {
			return err
		}
		return usagef("--fork-session %s: %v", src, err)
	}
	defer lock.Unlock()
	if err := session.Fork(ctx, srcDir, dir); err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return fmt.Errorf("--fork-session %s: %w", src, err)
	}
	p.forkedFrom = src
	return nil
}

package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/kimi-run/kimi-run/internal/atomicfile"
	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/infile"
)

// checkFork checks, before anything is made, that session src can be forked into the new
// session id: src has a conversation, and id is free. When id is a fork of src already, made
// by an earlier run of the same command that was killed, again reports that the run
// continues it rather than fork anew: a retried job goes on where it stopped.
func checkFork(root, src, id string) (again bool, err error) {
	if !ValidID(src) {
		return false, usagef("invalid session id %q for --fork-session: use letters, digits, '.', '_' and '-'", src)
	}
	if _, err := os.Stat(filepath.Join(root, src, ContextFile)); err != nil {
		return false, usagef("--fork-session %s: there is no such session in %s (kimi-run --list-sessions lists them)", src, root)
	}
	if _, err := os.Lstat(filepath.Join(root, id)); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if m, err := ReadMeta(filepath.Join(root, id)); err == nil && m.ForkedFrom == src {
		return true, nil
	}
	return false, usagef("--fork-session %s --session %s: session %s exists already, and is not a fork of %s; a fork needs a new name", src, id, id, src)
}

// fork copies session src into the run's new session folder dir (made and locked), under
// src's lock taken shared, so that no run writes src while it is copied, while other forks
// of src copy it too: a run holding it makes the fork fail as busy (exit 75), or wait with
// --session-wait. src is not changed.
func (p *Run) fork(ctx context.Context, src, dir string, wait time.Duration, notice func(string)) error {
	srcDir := filepath.Join(p.Root, src)
	lock, err := TakeSharedLock(ctx, srcDir, src, wait, notice)
	if err != nil {
		var be *BusyError
		if errors.As(err, &be) || ctx.Err() != nil {
			return err
		}
		return usagef("--fork-session %s: %v", src, err)
	}
	defer lock.Unlock()
	if err := Fork(ctx, srcDir, dir); err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return fmt.Errorf("--fork-session %s: %w", src, err)
	}
	p.ForkedFrom = src
	return nil
}

// Fork copies the session in folder src into the new session folder dst (made, locked and
// empty): the conversation, the subagents' conversations and the file tools' before-images,
// so that dst restores as src would and src is left as it was (issue 32 #4). The caller
// holds src's lock, so nobody writes src meanwhile. The copy of the conversation is synced
// before it is renamed into place: a crash leaves dst without a conversation or with a
// whole one. The files that never change once written (the subagents' conversations, the
// before-images) are hard links where the file system allows, copies elsewhere; the
// conversation and the journal, which dst appends to, are copies. src's meta file, lock and
// the conversations compaction and rewinds rotated aside are not copied.
func Fork(ctx context.Context, src, dst string) error {
	if err := copyFile(ctx, filepath.Join(src, ContextFile), filepath.Join(dst, ContextFile)); err != nil {
		return fmt.Errorf("fork session: %w", err)
	}
	if err := copyTree(ctx, filepath.Join(src, childDir), filepath.Join(dst, childDir), true); err != nil {
		return fmt.Errorf("fork session's subagents: %w", err)
	}
	if err := copyTree(ctx, filepath.Join(src, FilesDir, blobsName), filepath.Join(dst, FilesDir, blobsName), true); err != nil {
		return fmt.Errorf("fork session's before-images: %w", err)
	}
	err := copyFile(ctx, filepath.Join(src, FilesDir, journalName), filepath.Join(dst, FilesDir, journalName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("fork session's before-images: %w", err)
	}
	return nil
}

// copyFile copies a regular file of at most infile.Session's size to a new file (atomicfile),
// synced.
func copyFile(ctx context.Context, src, dst string) error {
	in, err := infile.Open(ctx, src, infile.Session)
	if err != nil {
		return err
	}
	defer in.Close()
	dir, err := beneath.Dir(filepath.Dir(dst), true, 0o700)
	if err != nil {
		return err
	}
	dir.Close()
	out, err := atomicfile.Create(dst, 0o600)
	if err != nil {
		return err
	}
	defer out.Discard()
	if _, err := io.Copy(out, in); err != nil {
		return err
	}
	return out.Commit()
}

// copyTree copies the folder src into dst, each regular file linked (when link, falling
// back to a copy) or copied; a missing src copies nothing. Links in src are skipped.
func copyTree(ctx context.Context, src, dst string, link bool) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == src {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			dir, err := beneath.Dir(to, true, 0o700)
			if err == nil {
				dir.Close()
			}
			return err
		case !d.Type().IsRegular():
			return nil
		case link && beneath.LinkPath(path, to) == nil:
			return nil
		}
		return copyFile(ctx, path, to)
	})
}

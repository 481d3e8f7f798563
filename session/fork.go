package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/kimi-run/kimi-run/internal/atomicfile"
	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/infile"
)

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

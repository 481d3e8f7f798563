package session

// Reverting the conversation to a checkpoint: the session file rewritten up to it, the
// file as it was kept aside.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/kimi-run/kimi-run/internal/atomicfile"
	"github.com/kimi-run/kimi-run/internal/beneath"
)

// Rewound is what Run.Rewind did to the session.
type Rewound struct {
	Checkpoint int
	// Backup is the file the conversation as it was is kept in.
	Backup string
	Files  []FileRewind
}

// Rewind takes the run's session back to checkpoint id (--rewind): the files first, when
// files asks (--rewind-files: what they held then is put back where canWrite allows; what
// they hold now is kept; each file not put back is also a warning), then the conversation
// (what came after is kept in a backup file). Files first: a crash between the two leaves
// the conversation whole, and the same command does it again.
func (p *Run) Rewind(ctx context.Context, id int, files bool, canWrite func(string) error, warn func(string)) error {
	if p.File == nil || p.Restored == nil {
		return usagef("--rewind %d: session %s has no conversation to rewind", id, p.ID)
	}
	if taken := len(p.Restored.Checkpoints); id >= taken {
		return usagef("--rewind %d: session %s has checkpoints 0 to %d (kimi-run --show-session %s lists them)", id, p.ID, taken-1, p.ID)
	}
	rw := &Rewound{Checkpoint: id}
	if files {
		if p.Journal == nil {
			return usagef("--rewind-files: session %s keeps no before-images of its files here", p.ID)
		}
		var err error
		if rw.Files, err = p.Journal.RewindFiles(ctx, id, canWrite); err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return fmt.Errorf("--rewind-files: %w", err)
		}
		for _, f := range rw.Files {
			if f.Action == NotRestored {
				warn(fmt.Sprintf("--rewind-files: %s was not put back: %s", f.Path, f.Why))
			}
		}
	}
	restored, err := p.File.Revert(id)
	if err != nil {
		var ue *UnknownCheckpointError
		if errors.As(err, &ue) {
			return usagef("--rewind %d: session %s has checkpoints 0 to %d", id, p.ID, ue.Taken-1)
		}
		return fmt.Errorf("--rewind %d: %w", id, err)
	}
	rw.Backup = restored.Rotated
	p.Restored, p.Rewound = restored, rw
	return nil
}

// Revert rewinds the session to just before checkpoint id. The current file is kept as
// path.N (the first free N from 1; nothing is deleted), and path then holds every record
// that came before the checkpoint. The new file is written to a temporary file, synced and
// renamed into place, so a crash leaves either the old file or the new one at path. Later
// writes go to the new file, and the next checkpoint gets id again.
func (s *File) Revert(id int) (*Restored, error) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil, ErrClosed
	}
	if id < 0 || id >= s.next {
		return nil, &UnknownCheckpointError{ID: id, Taken: s.next}
	}
	if err := s.f.Sync(); err != nil {
		return nil, fmt.Errorf("sync session: %w", err)
	}
	tmp, sc, err := s.writePrefix(id)
	if err != nil {
		return nil, err
	}
	defer tmp.Discard()
	// Windows cannot rename over a file that is still open.
	err = s.f.Close()
	s.f = nil
	var rotated string
	if err != nil {
		err = fmt.Errorf("close session: %w", err)
	} else if rotated, err = rotateAside(s.path); err == nil {
		if err = tmp.Commit(); err != nil {
			err = fmt.Errorf("replace session file: %w", err)
		}
	}
	if err != nil {
		// Keep the session usable on the old file.
		if f, oerr := beneath.Open(s.path, os.O_WRONLY|os.O_APPEND, 0); oerr == nil {
			s.f = f
		}
		return nil, err
	}
	f, err := beneath.Open(s.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("reopen session: %w", err)
	}
	s.f = f
	s.next = len(sc.restored.Checkpoints)
	s.fresh = false
	// The new file was synced before it took the old one's place.
	s.written, s.durable, s.syncDir = 0, 0, nil
	sc.restored.Rotated = rotated
	if s.journal != nil {
		// Best effort: a journal that cannot note it reports that itself (Journal.Err).
		s.journal.reverted(id)
	}
	return &sc.restored, nil
}

// writePrefix copies every record before checkpoint id into a replacement of the session
// file (atomicfile), to be committed by the caller.
func (s *File) writePrefix(id int) (*atomicfile.File, *scan, error) {
	src, err := beneath.Open(s.path, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("read session: %w", err)
	}
	defer src.Close()
	tmp, err := atomicfile.Create(s.path, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("create session temp file: %w", err)
	}
	fail := func(err error) (*atomicfile.File, *scan, error) {
		tmp.Discard()
		return nil, nil, err
	}
	bw := bufio.NewWriterSize(tmp, 64<<10)
	// The file is this run's own, under its lock: no cancellation midway.
	sc, err := scanWith(context.Background(), &scan{known: childKnown(context.Background(), s.path)}, src, id, func(line []byte) error {
		bw.Write(line)
		return bw.WriteByte('\n')
	})
	if err != nil {
		return fail(err)
	}
	if !sc.reached {
		return fail(&UnknownCheckpointError{ID: id, Taken: len(sc.restored.Checkpoints)})
	}
	if err := bw.Flush(); err != nil {
		return fail(fmt.Errorf("write session temp file: %w", err))
	}
	return tmp, sc, nil
}

// rotateAside keeps the current content of path as path.N, the first N from 1 that is free.
// A hard link keeps path in place, so there is no moment without a session file; where links
// are not supported the content is copied instead.
func rotateAside(path string) (string, error) {
	for n := 1; ; n++ {
		name := fmt.Sprintf("%s.%d", path, n)
		err := beneath.LinkPath(path, name)
		if err == nil {
			return name, nil
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		err = copyExclusive(path, name)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("rotate session file: %w", err)
		}
	}
}

// copyExclusive copies src to a new file dst, failing if dst exists.
func copyExclusive(src, dst string) error {
	in, err := beneath.Open(src, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := beneath.Open(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// A half copy is no rotation; drop it so the name stays free.
		beneath.RemovePath(dst)
	}
	return err
}

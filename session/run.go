package session

// Which session a run opens (--session, --continue, --fork-session, a new one) and what
// opening it found.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/infile"
	"github.com/kimi-run/kimi-run/model"
)

// lastFile, beside the sessions of a work dir, names the last one whose run exited 0
// (--continue).
const lastFile = "last-session"

// UsageError is a session a run cannot open as asked (a bad id, nothing to continue, a
// folder it cannot write): a problem with the command line or the environment.
type UsageError struct{ err error }

func (e *UsageError) Error() string { return e.err.Error() }
func (e *UsageError) Unwrap() error { return e.err }

// usagef formats a usage error; %w wraps its cause.
func usagef(format string, a ...any) error { return &UsageError{fmt.Errorf(format, a...)} }

// Want is the session a run asks for, as its flags say, and what opening it needs.
type Want struct {
	// Dir is --session-dir ("": under the state directory Getenv finds), WorkDir the
	// run's work dir and AddDirs its --add-dir dirs (the file tools' roots).
	Dir, WorkDir string
	AddDirs      []string
	Getenv       func(string) string
	// ID is --session, Continue --continue, Fork --fork-session, Wait --session-wait.
	ID       string
	Continue bool
	Fork     string
	Wait     time.Duration
	// Scrub cleans what the session's files get of the run's secrets (nil: nothing).
	Scrub func(string) string
	// Warn says what the run waits for (a lock) and what it goes on without.
	Warn func(string)
}

// Run is one run's hold on its session, from OpenRun to Close; the zero Run keeps none.
type Run struct {
	// Warning says why no session is kept. Notice says which session --continue resumes
	// (for stderr); Skipped warns of a newer unfinished session it passed over.
	Warning, Notice, Skipped string
	ID                       string
	// Root is the folder of the work dir's sessions.
	Root string
	// File is the session's context file, nil when none is kept; Restored is what a
	// resumed session brought back, nil for a new one.
	File     *File
	Restored *Restored
	// Repairs lists what the restore repaired, and a history lost (see lostHistory).
	Repairs []string
	// ForkedFrom is the session --fork-session copied; Journal keeps the file tools'
	// before-images (nil without them); Rewound says what Rewind did.
	ForkedFrom string
	Journal    *Journal
	Rewound    *Rewound
	lock       *Lock
	// lost says why a session that had finished a run came back without its history; the
	// run then starts it again as a new one.
	lost string
	// meta is what the session's meta file says, as this run updates it.
	meta    Meta
	started time.Time
	// begun waits for the syncs of Begin's write of the meta file, which go on beside the
	// first model request; nil before Begin.
	begun func() error
	scrub func(string) string
	// release lets go of the sessions' root, held while the run writes below it.
	release func()
}

// OpenRun creates or resumes the session w asks for, locks it for this run (TakeLock; Warn
// reports a wait for the lock) and starts keeping the file tools' before-images in it. A
// session that cannot be written stops a run that named it with a *UsageError; any other
// run goes on without one, with Warning saying why.
func OpenRun(ctx context.Context, w Want) (run Run, err error) {
	var p Run
	root, err := Root(w.Dir, w.WorkDir, w.Getenv)
	if errors.Is(err, ErrNoStateDir) {
		if w.ID == "" && !w.Continue {
			// A cron job with a bare environment still runs; it just keeps no session.
			p.Warning = "no session is kept: neither HOME nor XDG_STATE_HOME is set (pass --session-dir DIR to keep one)"
			return p, nil
		}
		err = usagef("%w", err)
	}
	if err != nil {
		return p, err
	}
	p.Root = root
	if err := p.pick(ctx, w); err != nil {
		return p, err
	}
	forkAgain := false
	if w.Fork != "" {
		if forkAgain, err = checkFork(root, w.Fork, p.ID); err != nil {
			return p, err
		}
	}
	explicit := w.ID != "" || w.Continue || w.Fork != ""
	dir := filepath.Join(root, p.ID)
	// No link below the root is followed: a session folder inside the work dir could have
	// been replaced by one by a command of an earlier run.
	// The root is held for the run: every write below it, whatever code makes it, starts
	// from this handle and follows no link (beneath.Hold).
	err = os.MkdirAll(root, 0o700)
	var release func()
	if err == nil {
		release, err = beneath.Hold(root)
	}
	if err != nil {
		return p.unsaved(explicit, err)
	}
	defer func() {
		if run.File == nil {
			release()
		} else {
			run.release = release
		}
	}()
	f, err := beneath.MkdirAll(root, p.ID, 0o700)
	if err != nil {
		return p.unsaved(explicit, err)
	}
	f.Close()
	lock, err := TakeLock(ctx, dir, p.ID, w.Wait, w.Warn)
	var be *BusyError
	switch {
	case errors.As(err, &be) || ctx.Err() != nil:
		return p, err
	case err != nil:
		return p.unsaved(explicit, err)
	}
	p.lock = lock
	if forkAgain {
		w.Warn(fmt.Sprintf("session %s is the fork of %s an earlier run began: this run continues it", p.ID, w.Fork))
		p.ForkedFrom = w.Fork
	} else if w.Fork != "" {
		if err := p.fork(ctx, w.Fork, dir, w.Wait, w.Warn); err != nil {
			lock.Unlock()
			beneath.RemoveAllPath(dir)
			return Run{}, err
		}
	}
	p, err = p.open(ctx, w, filepath.Join(dir, ContextFile), explicit)
	if err != nil || p.File == nil {
		lock.Unlock()
		return p, err
	}
	p.keepFiles(w)
	return p, nil
}

// pick names the session w asks for: the one last-session names (--continue), --session's,
// or a new one.
func (p *Run) pick(ctx context.Context, w Want) error {
	switch {
	case w.Continue:
		b, err := infile.Read(ctx, filepath.Join(p.Root, lastFile), infile.SessionMeta)
		if err != nil {
			msg := fmt.Sprintf("no earlier session to continue for %s (in %s): --continue picks the last run that exited 0", w.WorkDir, p.Root)
			if u, ok := NewestUnfinished(p.Root, "", time.Time{}); ok {
				msg += fmt.Sprintf("; the newest unfinished session is %s (%s; started %s): to resume it, run kimi-run --session %s",
					u.ID, u.Describe(), u.Started.Local().Format(time.DateTime), u.ID)
			}
			return usagef("%s", msg)
		}
		p.ID = strings.TrimSpace(string(b))
		p.Notice, p.Skipped = continueNotes(p.Root, p.ID)
	case w.ID != "":
		p.ID = w.ID
	default:
		p.ID = newID()
	}
	if !ValidID(p.ID) {
		return usagef("invalid session id %q: use letters, digits, '.', '_' and '-'", p.ID)
	}
	return nil
}

// open resumes or creates the session's context file, the lock taken.
func (p Run) open(ctx context.Context, w Want, path string, explicit bool) (Run, error) {
	opt := WithRedact(w.Scrub)
	p.scrub = w.Scrub
	if _, err := os.Stat(path); err == nil {
		p.File, p.Restored, err = Open(ctx, path, opt)
		if err != nil && ctx.Err() != nil {
			return p, context.Cause(ctx) // a signal or --timeout during a long restore
		}
		if err != nil {
			return p.unsaved(explicit, fmt.Errorf("resume session %s: %w", p.ID, err))
		}
		for _, msg := range p.Restored.Warnings {
			p.Repairs = append(p.Repairs, "session "+p.ID+": "+msg)
		}
		if p.lost = lostHistory(p.ID, filepath.Dir(path), w.Continue, p.Restored); p.lost != "" {
			p.Restored = nil // nothing to resume: the run starts as in a new session
			p.Repairs = append(p.Repairs, p.lost)
		}
		return p, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return p.unsaved(explicit, err)
	}
	if p.lost = lostHistory(p.ID, filepath.Dir(path), w.Continue, nil); p.lost != "" {
		p.Repairs = append(p.Repairs, p.lost)
	}
	s, err := Create(path, opt)
	if err != nil {
		return p.unsaved(explicit, err)
	}
	p.File = s
	return p, nil
}

// keepFiles starts keeping the file tools' before-images in the session's folder. A
// session whose folder cannot hold them goes on without them, with a warning: a later
// --rewind-files will say which files it cannot put back.
func (p *Run) keepFiles(w Want) {
	roots := []string{w.WorkDir}
	for _, d := range w.AddDirs {
		if abs, err := filepath.Abs(d); err == nil {
			roots = append(roots, abs)
		}
	}
	j, err := p.File.KeepFiles(func(s string) bool { return w.Scrub != nil && w.Scrub(s) != s }, roots...)
	if err != nil {
		w.Warn(fmt.Sprintf("session %s: the file tools' changes cannot be undone by a later --rewind-files: %v", p.ID, err))
		return
	}
	p.Journal = j
}

// lostHistory says why a session comes back without its conversation although a run had
// finished on it (its kimi-run.json records one, or --continue found it as the last run
// that exited 0): its context file is missing (restored nil), empty, or holds only a
// system prompt. "" when it has a conversation, or never finished a run (a new session,
// or one whose only run was killed before it wrote anything).
func lostHistory(id, dir string, continued bool, restored *Restored) string {
	if restored != nil {
		for _, m := range restored.Messages {
			if m.Role != model.RoleSystem {
				return ""
			}
		}
	}
	m, err := ReadMeta(dir)
	finished := err == nil && (m.Runs >= 2 || m.Ended != nil)
	if !finished && !continued {
		return ""
	}
	what := "is missing"
	switch {
	case restored == nil:
	case len(restored.Messages) == 0 && restored.SystemPrompt == "":
		what = "is empty"
	default:
		what = "holds only a system prompt"
	}
	why := "it is the last session of this work dir that exited 0"
	if finished {
		why = fmt.Sprintf("its %s records %d run(s) (the last started %s, outcome %s)", MetaFile, m.Runs, m.Started.Local().Format(time.DateTime), m.Outcome)
	}
	return fmt.Sprintf("session %s lost its history: its context file %s, though %s; this run starts it again from the prompt, without what the earlier runs did", id, what, why)
}

// unsaved handles a session that cannot be written (a read-only mount, HOME=/ for a
// non-root user, a path through a file): a run that asked for a session by name stops
// with a usage error; any other run goes on without one, with a warning.
func (p Run) unsaved(explicit bool, err error) (Run, error) {
	if explicit {
		return p, usagef("session %s cannot be kept in %s: %v (pass --session-dir DIR with a writable directory)", p.ID, p.Root, err)
	}
	return Run{Warning: fmt.Sprintf("no session is kept: %s cannot be written (%v); pass --session-dir DIR to keep one, or --no-session", p.Root, err)}, nil
}

// continueNotes says which session --continue resumes, and warns of a newer session whose
// run did not finish its job, with the command that resumes that one.
func continueNotes(root, id string) (notice, skipped string) {
	var since time.Time
	notice = "continuing session " + id + ", the last run of this work dir that exited 0"
	if cur, ok := Load(filepath.Join(root, id)); ok && cur.State != OutcomeUnknown {
		since = cur.Started
		notice += fmt.Sprintf(" (started %s)", cur.Started.Local().Format(time.DateTime))
	}
	if u, ok := NewestUnfinished(root, id, since); ok {
		skipped = fmt.Sprintf("--continue skipped the newer unfinished session %s (%s; started %s): to resume that one instead, run kimi-run --session %s",
			u.ID, u.Describe(), u.Started.Local().Format(time.DateTime), u.ID)
	}
	return notice, skipped
}

// newID returns a random session id.
func newID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "session"
	}
	return hex.EncodeToString(b[:])
}

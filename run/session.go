package run

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/atomicfile"
	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/infile"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/session"
)

// lastFile, beside the sessions of a work dir, names the last one whose run exited 0
// (--continue).
const lastFile = "last-session"

// sessionRoot is session.Root in the run's environment; no place for sessions is a usage
// error.
func sessionRoot(sessionDir, workDir string, env config.Env) (string, error) {
	root, err := session.Root(sessionDir, workDir, env.Getenv)
	if errors.Is(err, session.ErrNoStateDir) {
		return "", usagef("%w", err)
	}
	return root, err
}

// sessionPlan is the session a run writes to.
type sessionPlan struct {
	warning string
	// notice says which session --continue resumes (for stderr); skipped warns of a newer
	// unfinished session it passed over.
	notice, skipped string
	id              string
	root            string
	// meta is what the session's meta file says, as this run updates it.
	meta     session.Meta
	started  time.Time
	session  *session.File
	restored *session.Restored
	lock     *session.Lock
	// lost says why a session that had finished a run came back without its history (see
	// lostHistory); the run then starts it again as a new one. repairs lists it with what
	// the restore repaired, for the warnings and the result.
	lost    string
	repairs []string
	// forkedFrom is the session --fork-session copied; journal keeps the file tools'
	// before-images; rewound says what --rewind did (issue 32 #4).
	forkedFrom string
	journal    *session.Journal
	rewound    *rewound
	// begun is the syncs of begin's write of the meta file, which go on beside the first
	// model request (issue 31); nil before begin.
	begun *pendingWrite
	// scrub cleans what the session's files get of the run's secrets (nil: nothing).
	scrub func(string) string
	// release lets go of the sessions' root, held while the run writes below it.
	release func()
}

// pendingWrite is a write (or sync) going on in the background.
type pendingWrite struct {
	done chan struct{}
	err  error
}

// goWrite starts write in the background.
func goWrite(write func() error) *pendingWrite {
	w := &pendingWrite{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		w.err = write()
	}()
	return w
}

// wait waits for the write to end and returns its error; nil for no write. It may be
// called any number of times.
func (w *pendingWrite) wait() error {
	if w == nil {
		return nil
	}
	<-w.done
	return w.err
}

// close closes the context file and releases the session's lock, once the meta file's
// write has ended.
func (p sessionPlan) close() {
	_ = p.begun.wait() // reported by settleSession when the run got that far
	if p.session != nil {
		p.session.Close()
	}
	p.lock.Unlock()
	if p.release != nil {
		p.release()
	}
}

// openSession creates or resumes the run's session as the flags say, and locks it for this
// run (see session.TakeLock; notice reports a wait for the lock).
func openSession(ctx context.Context, s *config.Settings, scrub func(string) string, notice func(string)) (plan sessionPlan, err error) {
	cli, workDir, id := &s.Flags, s.WorkDir, s.Session
	var p sessionPlan
	if cli.NoSession { // config.Resolve refused it with --session or --continue
		return p, nil
	}
	root, err := sessionRoot(cli.SessionDir, workDir, s.Env)
	if errors.Is(err, session.ErrNoStateDir) && id == "" && !cli.Continue {
		// A cron job with a bare environment still runs; it just keeps no session.
		p.warning = "no session is kept: neither HOME nor XDG_STATE_HOME is set (pass --session-dir DIR to keep one)"
		return p, nil
	}
	if err != nil {
		return p, err
	}
	p.root = root
	switch {
	case cli.Continue:
		b, err := infile.Read(ctx, filepath.Join(root, lastFile), infile.SessionMeta)
		if err != nil {
			msg := fmt.Sprintf("no earlier session to continue for %s (in %s): --continue picks the last run that exited 0", workDir, root)
			if u, ok := session.NewestUnfinished(root, "", time.Time{}); ok {
				msg += fmt.Sprintf("; the newest unfinished session is %s (%s; started %s): to resume it, run kimi-run --session %s",
					u.ID, u.Describe(), u.Started.Local().Format(time.DateTime), u.ID)
			}
			return p, usagef("%s", msg)
		}
		p.id = strings.TrimSpace(string(b))
		p.notice, p.skipped = continueNotes(root, p.id)
	case id != "":
		p.id = id
	default:
		p.id = newID()
	}
	if !session.ValidID(p.id) {
		return p, usagef("invalid session id %q: use letters, digits, '.', '_' and '-'", p.id)
	}
	forkAgain := false
	if cli.ForkSession != "" {
		if forkAgain, err = checkFork(root, cli.ForkSession, p.id); err != nil {
			return p, err
		}
	}
	explicit := id != "" || cli.Continue || cli.ForkSession != ""
	dir := filepath.Join(root, p.id)
	path := filepath.Join(dir, session.ContextFile)
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
		return p.unsaved(explicit, root, err)
	}
	defer func() {
		if plan.session == nil {
			release()
		} else {
			plan.release = release
		}
	}()
	f, err := beneath.MkdirAll(root, p.id, 0o700)
	if err != nil {
		return p.unsaved(explicit, root, err)
	}
	f.Close()
	lock, err := session.TakeLock(ctx, dir, p.id, cli.SessionWait, notice)
	var ue *usageError
	var be *session.BusyError
	switch {
	case errors.As(err, &ue) || errors.As(err, &be) || ctx.Err() != nil:
		return p, err
	case err != nil:
		return p.unsaved(explicit, root, err)
	}
	p.lock = lock
	if forkAgain {
		notice(fmt.Sprintf("session %s is the fork of %s an earlier run began: this run continues it", p.id, cli.ForkSession))
		p.forkedFrom = cli.ForkSession
	} else if cli.ForkSession != "" {
		if err := p.fork(ctx, cli.ForkSession, dir, cli.SessionWait, notice); err != nil {
			lock.Unlock()
			beneath.RemoveAllPath(dir)
			return sessionPlan{}, err
		}
	}
	p, err = p.open(ctx, cli.Continue, path, scrub, explicit, root)
	if err != nil || p.session == nil {
		lock.Unlock()
	}
	return p, err
}

// open resumes or creates the session's context file, the lock taken.
func (p sessionPlan) open(ctx context.Context, continued bool, path string, scrub func(string) string, explicit bool, root string) (sessionPlan, error) {
	opt := session.WithRedact(scrub)
	p.scrub = scrub
	if _, err := os.Stat(path); err == nil {
		p.session, p.restored, err = session.Open(ctx, path, opt)
		if err != nil && ctx.Err() != nil {
			return p, context.Cause(ctx) // a signal or --timeout during a long restore
		}
		if err != nil {
			return p.unsaved(explicit, root, fmt.Errorf("resume session %s: %w", p.id, err))
		}
		for _, w := range p.restored.Warnings {
			p.repairs = append(p.repairs, "session "+p.id+": "+w)
		}
		if p.lost = lostHistory(p.id, filepath.Dir(path), continued, p.restored); p.lost != "" {
			p.restored = nil // nothing to resume: the run starts as in a new session
			p.repairs = append(p.repairs, p.lost)
		}
		return p, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return p.unsaved(explicit, root, err)
	}
	if p.lost = lostHistory(p.id, filepath.Dir(path), continued, nil); p.lost != "" {
		p.repairs = append(p.repairs, p.lost)
	}
	s, err := session.Create(path, opt)
	if err != nil {
		return p.unsaved(explicit, root, err)
	}
	p.session = s
	return p, nil
}

// lostHistory says why a session comes back without its conversation although a run had
// finished on it (its kimi-run.json records one, or --continue found it as the last run
// that exited 0): its context file is missing (restored nil), empty, or holds only a
// system prompt. "" when it has a conversation, or never finished a run (a new session,
// or one whose only run was killed before it wrote anything).
func lostHistory(id, dir string, continued bool, restored *session.Restored) string {
	if restored != nil {
		for _, m := range restored.Messages {
			if m.Role != model.RoleSystem {
				return ""
			}
		}
	}
	m, err := session.ReadMeta(dir)
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
		why = fmt.Sprintf("its %s records %d run(s) (the last started %s, outcome %s)", session.MetaFile, m.Runs, m.Started.Local().Format(time.DateTime), m.Outcome)
	}
	return fmt.Sprintf("session %s lost its history: its context file %s, though %s; this run starts it again from the prompt, without what the earlier runs did", id, what, why)
}

// unsaved handles a session that cannot be written (a read-only mount, HOME=/ for a
// non-root user, a path through a file): a run that asked for a session by name stops
// with a usage error; any other run goes on without one, with a warning.
func (p sessionPlan) unsaved(explicit bool, root string, err error) (sessionPlan, error) {
	if explicit {
		return p, usagef("session %s cannot be kept in %s: %v (pass --session-dir DIR with a writable directory)", p.id, root, err)
	}
	return sessionPlan{warning: fmt.Sprintf("no session is kept: %s cannot be written (%v); pass --session-dir DIR to keep one, or --no-session", root, err)}, nil
}

// recordLast remembers the session for --continue; only runs that exit 0 call it, so a
// failed night is not what the next one continues by accident. When it cannot (a full
// disk), it removes last-session rather than leave it naming an older session.
func (p sessionPlan) recordLast() error {
	if p.session == nil {
		return nil
	}
	last := filepath.Join(p.root, lastFile)
	if err := atomicfile.Write(last, []byte(p.id+"\n"), 0o600); err != nil {
		if rerr := beneath.RemovePath(last); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return fmt.Errorf("last-session could not be updated (%w) nor removed (%v): --continue would resume an older session", err, rerr)
		}
		return fmt.Errorf("last-session could not be updated (%w), so it was removed: --continue finds no session until a run records one", err)
	}
	return nil
}

// continueNotes says which session --continue resumes, and warns of a newer session whose
// run did not finish its job, with the command that resumes that one.
func continueNotes(root, id string) (notice, skipped string) {
	var since time.Time
	notice = "continuing session " + id + ", the last run of this work dir that exited 0"
	if cur, ok := session.Load(filepath.Join(root, id)); ok && cur.State != session.OutcomeUnknown {
		since = cur.Started
		notice += fmt.Sprintf(" (started %s)", cur.Started.Local().Format(time.DateTime))
	}
	if u, ok := session.NewestUnfinished(root, id, since); ok {
		skipped = fmt.Sprintf("--continue skipped the newer unfinished session %s (%s; started %s): to resume that one instead, run kimi-run --session %s",
			u.ID, u.Describe(), u.Started.Local().Format(time.DateTime), u.ID)
	}
	return notice, skipped
}

// begin records in the meta file that a run has started on the session. The file is in
// place (atomically: any process reads all of it or the old one) when begin returns, so a
// run killed from then on is listed as such; its syncs go on in the background, as nothing
// needs it durable before the first model request (docs/design.md, "What must be durable
// when") and its two fsyncs were most of a session's cost before that request. end, close
// and settleSession wait for them. An error is the write's; the syncs' is reported by
// settleSession.
func (p *sessionPlan) begin(prompt, workDir string, now time.Time) error {
	if p.session == nil {
		return nil
	}
	dir := filepath.Dir(p.session.Path())
	m, err := session.ReadMeta(dir)
	if err != nil || m.Created.IsZero() {
		m = session.Meta{Created: now}
		if p.restored != nil {
			m.Outcome = session.OutcomeUnknown
		}
	}
	if m.Prompt == "" && p.restored != nil {
		// A session older than its meta file: its first prompt is in the conversation.
		for _, msg := range p.restored.Messages {
			if msg.Role == model.RoleUser && !strings.HasPrefix(msg.Content, "<system>") {
				m.Prompt = session.FirstLine(msg.Content)
				break
			}
		}
	}
	if m.Prompt == "" {
		m.Prompt = session.FirstLine(prompt)
	}
	if p.scrub != nil {
		m.Prompt = p.scrub(m.Prompt)
	}
	m.ID, m.WorkDir, m.Started, m.Ended, m.Outcome, m.ExitCode, m.SessionWarning = p.id, workDir, now, nil, session.OutcomeRunning, nil, ""
	if p.forkedFrom != "" {
		m.ForkedFrom = p.forkedFrom
	}
	m.Runs++
	p.meta, p.started = m, now
	sync, err := session.WriteMetaVisible(dir, m)
	if err != nil {
		return err
	}
	p.begun = goWrite(sync)
	return nil
}

// end records how the run ended.
func (p *sessionPlan) end(v verdict, warning string, now time.Time) error {
	if p.session == nil || p.started.IsZero() {
		return nil
	}
	_ = p.begun.wait() // the start's record first; settleSession reported its failure
	m := p.meta
	code := int(v.code)
	m.Ended, m.Outcome, m.ExitCode, m.SessionWarning = &now, v.reason, &code, warning
	return session.WriteMeta(filepath.Dir(p.session.Path()), m)
}

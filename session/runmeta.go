package session

// What a run records of itself in its session: its start and end in the meta file, and
// last-session after a run that exited 0.

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/internal/atomicfile"
	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/model"
)

// waitBegun waits for Begin's syncs and returns their error; nil before Begin. It may be
// called any number of times.
func (p Run) waitBegun() error {
	if p.begun == nil {
		return nil
	}
	return p.begun()
}

// Close closes the context file and releases the session's lock and root, once the meta
// file's write has ended.
func (p Run) Close() {
	_ = p.waitBegun() // reported by Settle when the run got that far
	if p.File != nil {
		p.File.Close()
	}
	p.lock.Unlock()
	if p.release != nil {
		p.release()
	}
}

// DropIfNew removes the session this run created when the run stops on a usage error
// found after the session was opened (a tool rule naming no MCP tool, an MCP server down
// under --mcp-strict, a cassette that cannot be written): the run never started, and an
// empty session would only be noise for --continue and for whoever reads the directory.
// A resumed session is left alone. A dropped session leaves p the zero Run, so finishing
// the run neither syncs nor records an outcome in a directory that is gone.
func (p *Run) DropIfNew() {
	if p.File == nil || p.Restored != nil || p.lost != "" {
		return
	}
	release := p.release
	p.release = nil
	p.Close()
	beneath.RemoveAllPath(filepath.Join(p.Root, p.ID))
	if release != nil {
		release()
	}
	*p = Run{}
}

// Begin records in the meta file that a run has started on the session. The file is in
// place (atomically: any process reads all of it or the old one) when Begin returns, so a
// run killed from then on is listed as such; its syncs go on in the background, as nothing
// needs it durable before the first model request (docs/design.md, "What must be durable
// when") and its two fsyncs were most of a session's cost before that request. Settle and
// Close wait for them. An error is the write's; the syncs' is reported by Settle.
func (p *Run) Begin(prompt, workDir string, now time.Time) error {
	if p.File == nil {
		return nil
	}
	dir := filepath.Dir(p.File.Path())
	m, err := ReadMeta(dir)
	if err != nil || m.Created.IsZero() {
		m = Meta{Created: now}
		if p.Restored != nil {
			m.Outcome = OutcomeUnknown
		}
	}
	if m.Prompt == "" && p.Restored != nil {
		// A session older than its meta file: its first prompt is in the conversation.
		for _, msg := range p.Restored.Messages {
			if msg.Role == model.RoleUser && !strings.HasPrefix(msg.Content, "<system>") {
				m.Prompt = FirstLine(msg.Content)
				break
			}
		}
	}
	if m.Prompt == "" {
		m.Prompt = FirstLine(prompt)
	}
	if p.scrub != nil {
		m.Prompt = p.scrub(m.Prompt)
	}
	m.ID, m.WorkDir, m.Started, m.Ended, m.Outcome, m.ExitCode, m.SessionWarning = p.ID, workDir, now, nil, OutcomeRunning, nil, ""
	if p.ForkedFrom != "" {
		m.ForkedFrom = p.ForkedFrom
	}
	m.Runs++
	p.meta, p.started = m, now
	sync, err := WriteMetaVisible(dir, m)
	if err != nil {
		return err
	}
	done, serr := make(chan struct{}), error(nil)
	go func() { defer close(done); serr = sync() }()
	p.begun = func() error { <-done; return serr }
	// Its sync of the session's folder comes after the context file was made there, so it
	// makes that file's name durable too: the file's first sync waits for it instead of
	// syncing the folder again.
	p.File.mu.Lock()
	if p.File.syncDir != nil {
		p.File.syncDir = func() { <-done }
	}
	p.File.mu.Unlock()
	return nil
}

// Settle makes the session durable, points last-session at it after a run that exited 0,
// and records the run's exit code and terminal reason. saveErr (nil: none) reports the
// first failure to write the session; warn reports each problem as it is found. It returns
// the result's session_warning: why the session on disk lacks part of the run, or why
// --continue will not find it; "" when all is well.
//
// Its writes overlap, so that their fsyncs share the disk's journal commits instead of
// queueing: the new last-session and meta file are written and synced beside the context
// file's sync and the start's, renamed into place once those have ended (last-session
// first), and their folders synced together. The meta file is written with the warning
// known at the start; a sync that adds one has it written again.
func (p *Run) Settle(code int, reason string, saveErr func() error, warn func(string)) string {
	if p.File == nil {
		return p.Warning // no session could be kept at all
	}
	var err, lastErr, metaErr error
	if saveErr != nil {
		err = saveErr() // already reported by a warning when it happened
	}
	var last, meta *atomicfile.File
	if code == 0 {
		last, lastErr = createFile(filepath.Join(p.Root, lastFile), []byte(p.ID+"\n"))
	}
	dir, now, staged := filepath.Dir(p.File.Path()), time.Now(), p.warning(err, nil)
	if !p.started.IsZero() {
		meta, metaErr = createMeta(dir, p.ended(code, reason, staged, now))
	}
	var wg sync.WaitGroup
	if last != nil {
		wg.Go(func() { lastErr = last.Sync() })
	}
	if meta != nil {
		wg.Go(func() { metaErr = meta.Sync() })
	}
	var syncErr error
	if err == nil {
		wg.Go(func() { syncErr = p.File.Sync() })
	}
	beginErr := p.waitBegun()
	wg.Wait()
	if beginErr != nil {
		// The start's record could not be synced: the end's write below replaces it.
		warn(beginErr.Error())
	}
	if syncErr != nil {
		warn(syncErr.Error())
		err = syncErr
	}
	var dirSyncs []func() error
	commit := func(f *atomicfile.File, err error) error {
		if err == nil {
			var syncDir func() error
			if syncDir, err = f.CommitVisible(); err == nil {
				dirSyncs = append(dirSyncs, syncDir)
			}
		}
		return err
	}
	var lastProblem error
	if code == 0 {
		if lastProblem = p.lastFailed(commit(last, lastErr)); lastProblem != nil {
			warn(lastProblem.Error())
		}
	}
	warning := p.warning(err, lastProblem)
	if !p.started.IsZero() {
		if warning != staged || commit(meta, metaErr) != nil {
			if meta != nil {
				meta.Discard()
			}
			if err := WriteMeta(dir, p.ended(code, reason, warning, now)); err != nil {
				warn(err.Error() + " (--list-sessions shows it as unknown)")
			}
		}
	}
	for _, syncDir := range dirSyncs {
		wg.Go(func() { syncDir() }) // after Sync, only the folder's, which reports nothing
	}
	wg.Wait()
	return warning
}

// warning is the result's session_warning for a context file that could not be saved whole
// (err) and a last-session that could not be updated (last).
func (p *Run) warning(err, last error) string {
	var problems []string
	if err != nil {
		problems = append(problems, fmt.Sprintf("the session was not saved whole: it ends at the last record written, and resuming it goes on from there (%v)", err))
	}
	if last != nil {
		problems = append(problems, last.Error())
	}
	warning := strings.Join(problems, "; ")
	if p.scrub != nil {
		warning = p.scrub(warning)
	}
	return warning
}

// lastFailed says what a failure to point last-session at the session (err; nil: none) left
// behind: last-session is removed rather than left naming an older session, so that
// --continue does not resume that one by accident. Only runs that exit 0 update it, so a
// failed night is not what the next one continues.
func (p *Run) lastFailed(err error) error {
	if err == nil {
		return nil
	}
	if rerr := beneath.RemovePath(filepath.Join(p.Root, lastFile)); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return fmt.Errorf("last-session could not be updated (%w) nor removed (%v): --continue would resume an older session", err, rerr)
	}
	return fmt.Errorf("last-session could not be updated (%w), so it was removed: --continue finds no session until a run records one", err)
}

// ended is the meta file's record of the run's end.
func (p *Run) ended(code int, reason, warning string, now time.Time) Meta {
	m := p.meta
	m.Ended, m.Outcome, m.ExitCode, m.SessionWarning = &now, reason, &code, warning
	return m
}

// Package session is the session store: a conversation's context file (context.jsonl in
// Kimi CLI's layout), appended record by record so that a crash loses at most the torn last
// line, restored with repairs, and cut back to a checkpoint.
package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/kimi-run/kimi-run/internal/atomicfile"
	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/infile"
	"github.com/kimi-run/kimi-run/model"
)

// ErrClosed is returned by writes to a File after Close.
var ErrClosed = errors.New("session is closed")

// UnknownCheckpointError is returned by Revert for a checkpoint the session does not hold.
type UnknownCheckpointError struct {
	// ID is the checkpoint asked for.
	ID int
	// Taken is how many checkpoints the session holds (ids 0..Taken-1).
	Taken int
}

func (e *UnknownCheckpointError) Error() string {
	return fmt.Sprintf("checkpoint %d does not exist (the session holds %d)", e.ID, e.Taken)
}

// Restored is the state read back from a context file.
type Restored struct {
	// SystemPrompt is the last system prompt record, "" when there is none.
	SystemPrompt string
	// Messages is the conversation in file order.
	Messages []model.Message
	// Checkpoints holds, for each checkpoint id, the number of messages before it; reverting
	// to id i leaves Messages[:Checkpoints[i]].
	Checkpoints []int
	// TokenCount is the last usage record, 0 when there is none.
	TokenCount int
	// Warnings describes every line that was skipped or only partly understood.
	Warnings []string
	// Rotated is the file the previous content was moved to; set by Revert only.
	Rotated string
}

// File appends a run's context to a JSONL file in Kimi CLI's context.jsonl layout.
//
// Each record is written whole by one write call on a file opened for appending, so a crash
// at any moment leaves at most a torn last line, which Open skips and cuts off. A written
// record survives the process being killed; AppendSync and Sync make records survive the
// machine going down too. Writes are safe for concurrent use.
type File struct {
	path   string
	redact func(string) string

	// syncMu lets one sync run at a time, without holding up writes; Close and Revert take it
	// too, so the file is not closed under a sync. Lock order: syncMu, then mu.
	syncMu sync.Mutex
	mu     sync.Mutex
	f      *os.File
	// next is the id the next checkpoint gets.
	next int
	// fresh is set when the file may end without a newline (a failed write, or a whole
	// record that lost only its newline); the next record then starts with one.
	fresh bool
	// written counts the records written; durable is how many of them the last sync
	// covered, so a sync that an earlier one already covered costs nothing.
	written, durable int64
	// syncDir makes a new file's directory entry durable; the first sync calls it, so
	// creating a session costs no sync before the run needs one. nil once done, and for a
	// file that was not created. Run.Begin hands it its own sync of the same directory.
	syncDir func()
	// journal keeps the file tools' before-images (KeepFiles); a revert is noted in it.
	journal *Journal
}

// Option configures a File.
type Option func(*File)

// WithRedact makes the session pass every record line through redact before writing it, so
// the caller can scrub secrets such as the API key. redact sees the line's JSON text
// without the newline (a secret appears JSON-escaped in it) and must return valid JSON
// on one line; otherwise the write fails with ErrBadRedaction.
func WithRedact(redact func(string) string) Option {
	return func(s *File) { s.redact = redact }
}

// Create creates a new context file at path, making parent directories (0700) as
// needed. The file is created 0600 and must not exist yet.
func Create(path string, opts ...Option) (*File, error) {
	dir, err := beneath.Dir(filepath.Dir(path), true, 0o700)
	if err != nil {
		return nil, fmt.Errorf("create session directory: %w", err)
	}
	f, err := beneath.OpenFile(dir, filepath.Base(path), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	dir.Close()
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	s := newFile(path, opts)
	s.f = f
	s.syncDir = func() { atomicfile.SyncDir(filepath.Dir(path)) }
	return s, nil
}

// Read restores the context file at path without changing it (see Open for
// what a restore repairs). It stops with ctx's cause when ctx ends.
func Read(ctx context.Context, path string) (*Restored, error) {
	sc, err := readScan(ctx, path)
	if err != nil {
		return nil, err
	}
	return &sc.restored, nil
}

func readScan(ctx context.Context, path string) (*scan, error) {
	// A regular file of at most infile.Session's size: a link to /dev/zero or a FIFO is
	// refused at once, and a read stops when ctx ends even within one long line.
	rf, err := infile.Open(ctx, path, infile.Session)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	defer rf.Close()
	return scanWith(ctx, &scan{known: childKnown(ctx, path)}, rf, -1, nil)
}

// Open restores the context file at path and keeps appending to it. Lines that
// cannot be read are skipped and reported in Restored.Warnings. A torn last line (the
// remains of a write cut short by a crash) is cut off the file, so the next record starts
// on a fresh line and Kimi CLI can still read the file; a whole last record that only lacks
// its newline is kept. The restored conversation is always valid for a provider: tool calls
// left without a result at the end of the file get an "interrupted" result, appended to the
// file too. Restoring takes time and memory in proportion to the file's size, and stops
// with ctx's cause when ctx ends (a signal, --timeout).
func Open(ctx context.Context, path string, opts ...Option) (*File, *Restored, error) {
	sc, err := readScan(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	if sc.tail > 0 && !sc.tailOK {
		if err := truncate(path, sc.cleanEnd); err != nil {
			return nil, nil, fmt.Errorf("cut torn session tail: %w", err)
		}
	}
	f, err := beneath.Open(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open session for append: %w", err)
	}
	s := newFile(path, opts)
	s.f = f
	s.next = len(sc.restored.Checkpoints)
	s.fresh = sc.tail > 0 && sc.tailOK
	for _, m := range sc.repaired {
		// Best effort: if this write fails, the next restore repairs the file the same way.
		if err := s.Append(m); err != nil {
			break
		}
	}
	return s, &sc.restored, nil
}

func newFile(path string, opts []Option) *File {
	s := &File{path: path}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Path returns the context file's path.
func (s *File) Path() string { return s.path }

// SystemPrompt records the system prompt. Call it first on a new session; on restore the
// last system prompt record wins.
func (s *File) SystemPrompt(p string) error {
	_, err := s.write(systemPromptRecord{Role: recordSystemPrompt, Content: p})
	return err
}

// Append records one message.
func (s *File) Append(m model.Message) error {
	_, err := s.writeMessage(m)
	return err
}

// AppendSync records one message and returns once it is on stable storage, with every
// record written before it. Calls that overlap share one sync.
func (s *File) AppendSync(m model.Message) error {
	n, err := s.writeMessage(m)
	if err != nil {
		return err
	}
	return s.syncThrough(n)
}

// writeMessage writes m with its media, or, when they make the record too large for one
// line (several big --image files), with a note in place of each: a conversation that is
// saved without its pictures beats a session dropped for the rest of the run.
func (s *File) writeMessage(m model.Message) (int64, error) {
	n, err := s.write(toMessageRecord(m))
	if errors.Is(err, ErrRecordTooLarge) && len(m.Images) > 0 {
		return s.write(messageRecordOf(m, false))
	}
	return n, err
}

// Usage records the context's token count after a model call.
func (s *File) Usage(tokenCount int) error {
	_, err := s.write(usageRecord{Role: recordUsage, TokenCount: tokenCount})
	return err
}

// Checkpoint records a checkpoint and returns its id: 0 for the first, then 1, 2, ….
func (s *File) Checkpoint() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.next
	line, err := encodeLine(checkpointRecord{Role: recordCheckpoint, ID: id}, s.redact)
	if err != nil {
		return 0, err
	}
	if err := s.writeLocked(line); err != nil {
		return 0, err
	}
	s.next++
	return id, nil
}

// write encodes outside the lock, so a big tool output does not hold up other writers. It
// returns the record's number, for syncThrough.
func (s *File) write(v any) (int64, error) {
	line, err := encodeLine(v, s.redact)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writeLocked(line); err != nil {
		return 0, err
	}
	return s.written, nil
}

func (s *File) writeLocked(line []byte) error {
	if s.f == nil {
		return ErrClosed
	}
	if s.fresh {
		line = append([]byte{'\n'}, line...)
	}
	// One write call per record: a crash tears at most this line. A failed write may have
	// left part of the line behind, so the next record starts on a fresh line.
	if _, err := s.f.Write(line); err != nil {
		s.fresh = true
		return fmt.Errorf("write session record: %w", err)
	}
	s.fresh = false
	s.written++
	return nil
}

// Sync puts every record written so far on stable storage (and, for a new file, its
// directory entry). The agent calls it before a tool call starts and at the end of each turn.
func (s *File) Sync() error {
	s.mu.Lock()
	n := s.written
	s.mu.Unlock()
	return s.syncThrough(n)
}

// syncThrough makes records up to number n durable. Writes go on while it syncs; a sync
// that began after record n was written covers it, so overlapping callers share one.
func (s *File) syncThrough(n int64) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	s.mu.Lock()
	f, upto, dir := s.f, s.written, s.syncDir
	done := s.durable >= n && dir == nil
	s.mu.Unlock()
	if f == nil {
		return ErrClosed
	}
	if done {
		return nil
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync session: %w", err)
	}
	if dir != nil {
		dir()
	}
	s.mu.Lock()
	s.durable = max(s.durable, upto)
	s.syncDir = nil
	s.mu.Unlock()
	return nil
}

// Close syncs what is not synced yet and closes the file. Closing twice is harmless.
func (s *File) Close() error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	var serr error
	if s.durable < s.written {
		// Nothing to sync when the last sync (the end of the turn, usually) covered every
		// record.
		serr = s.f.Sync()
	}
	if s.syncDir != nil {
		s.syncDir()
		s.syncDir = nil
	}
	cerr := s.f.Close()
	s.f = nil
	if s.journal != nil {
		s.journal.Close()
	}
	if err := errors.Join(serr, cerr); err != nil {
		return fmt.Errorf("close session: %w", err)
	}
	return nil
}

// truncate cuts the file at path to size, following no link (beneath.Open).
func truncate(path string, size int64) error {
	f, err := beneath.Open(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

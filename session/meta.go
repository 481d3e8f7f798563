package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/internal/atomicfile"
	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/infile"
)

// MetaFile sits beside a session's context file and says how its runs went, so that
// --list-sessions and --continue need not read conversations.
const MetaFile = "kimi-run.json"

// Outcomes a session has that are not a run's terminal_reason.
const (
	OutcomeRunning = "running" // a run holds the session now
	OutcomeKilled  = "killed"  // a run began and never finished (SIGKILL, OOM, power loss)
	OutcomeUnknown = "unknown" // no record of its runs (a session from before kimi-run 0.x kept one)
)

// Meta is the content of MetaFile.
type Meta struct {
	ID      string    `json:"id"`
	WorkDir string    `json:"work_dir,omitempty"`
	Created time.Time `json:"created"`
	// Started is when the last run on the session began; Ended when it finished (zero while
	// it runs, or when it never finished).
	Started time.Time  `json:"started"`
	Ended   *time.Time `json:"ended,omitempty"`
	// Outcome is "running" while a run is on, then that run's terminal_reason.
	Outcome  string `json:"outcome"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Runs     int    `json:"runs"`
	// Prompt is the first line of the session's first prompt.
	Prompt         string `json:"prompt"`
	SessionWarning string `json:"session_warning,omitempty"`
	// ForkedFrom is the session --fork-session copied this one from.
	ForkedFrom string `json:"forked_from,omitempty"`
}

// ReadMeta reads a session's meta file.
func ReadMeta(dir string) (Meta, error) {
	var m Meta
	b, err := infile.Read(context.Background(), filepath.Join(dir, MetaFile), infile.SessionMeta)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", MetaFile, err)
	}
	return m, nil
}

// WriteMeta replaces a session's meta file (atomicfile's guarantee). When that fails (a
// full disk) the old file is removed, so that no stale outcome survives: the session then
// lists as unknown.
func WriteMeta(dir string, m Meta) error {
	f, err := createMeta(dir, m)
	if err == nil {
		err = f.Commit()
	}
	if err != nil {
		beneath.RemovePath(filepath.Join(dir, MetaFile))
		return fmt.Errorf("record the session's outcome: %w", err)
	}
	return nil
}

// WriteMetaVisible writes the meta file as WriteMeta does, but returns once every process
// can read it, before it is synced: sync, called once (in the background), makes it durable.
// A reader already takes an unreadable meta file for a missing one (ReadMeta fails; Load
// shows the session as unknown), which is what a crash of the machine before sync may leave.
func WriteMetaVisible(dir string, m Meta) (sync func() error, err error) {
	f, err := createMeta(dir, m)
	var synced func() error
	if err == nil {
		synced, err = f.CommitVisible()
	}
	if err != nil {
		return nil, fmt.Errorf("record the session's start: %w", err)
	}
	return func() error {
		if err := synced(); err != nil {
			return fmt.Errorf("record the session's start: %w", err)
		}
		return nil
	}, nil
}

// createMeta starts a replacement of a session's meta file holding m (createFile).
func createMeta(dir string, m Meta) (*atomicfile.File, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return createFile(filepath.Join(dir, MetaFile), append(b, '\n'))
}

// createFile starts a replacement of the file at path (atomicfile.Create) holding data.
func createFile(path string, data []byte) (*atomicfile.File, error) {
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Discard()
		return nil, err
	}
	return f, nil
}

// FirstLine is the first non-blank line of a prompt, shortened for a listing.
func FirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > 120 {
				l = string(r[:119]) + "…"
			}
			return l
		}
	}
	return ""
}

// Info is one session as a listing shows it.
type Info struct {
	Meta
	// State is Outcome as it stands now: a "running" session whose lock is free was killed.
	State string
}

// Unfinished says the session's last run ended without doing its job (a failure, a limit,
// a signal, a kill): the kind of session a retry should resume.
func (s Info) Unfinished() bool {
	switch s.State {
	case "completed", "stop", OutcomeRunning, OutcomeUnknown:
		return false
	}
	return true
}

// Describe says in a few words how the session's last run ended.
func (s Info) Describe() string {
	switch {
	case s.State == OutcomeKilled:
		return "killed: its last run never finished"
	case s.ExitCode != nil:
		return fmt.Sprintf("%s, exit %d", s.State, *s.ExitCode)
	}
	return s.State
}

// Load describes the session in dir; ok is false when dir holds none.
func Load(dir string) (info Info, ok bool) {
	m, err := ReadMeta(dir)
	if err != nil {
		fi, serr := os.Lstat(filepath.Join(dir, ContextFile))
		if serr != nil {
			return info, false
		}
		m = Meta{ID: filepath.Base(dir), Created: fi.ModTime(), Started: fi.ModTime(), Outcome: OutcomeUnknown}
	}
	m.ID = filepath.Base(dir)
	info = Info{Meta: m, State: m.Outcome}
	if m.Outcome == OutcomeRunning && !lockHeld(dir) {
		info.State = OutcomeKilled
	}
	return info, true
}

// List describes every session under root, newest run first.
func List(root string) ([]Info, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, e := range entries {
		if !e.IsDir() || !ValidID(e.Name()) {
			continue
		}
		if info, ok := Load(filepath.Join(root, e.Name())); ok {
			out = append(out, info)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Started.Equal(out[j].Started) {
			return out[i].Started.After(out[j].Started)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// NewestUnfinished is the newest session under root whose last run did not finish its job
// and began after since (zero: any time), other than skip.
func NewestUnfinished(root, skip string, since time.Time) (Info, bool) {
	all, err := List(root)
	if err != nil {
		return Info{}, false
	}
	for _, s := range all {
		if s.ID != skip && s.Unfinished() && s.Started.After(since) {
			return s, true
		}
	}
	return Info{}, false
}

// lockHeld reports whether a run holds the session in dir now.
func lockHeld(dir string) bool {
	f, err := beneath.Open(filepath.Join(dir, lockFile), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := tryLock(f, false); err != nil {
		return errors.Is(err, errLocked)
	}
	_ = unlock(f)
	return false
}

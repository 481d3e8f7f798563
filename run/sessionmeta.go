package run

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

	"github.com/kimi-run/kimi-run/internal/infile"
)

// metaFile sits beside a session's context file and says how its runs went, so that
// --list-sessions and --continue need not read conversations.
const metaFile = "kimi-run.json"

// Outcomes a session has that are not a run's terminal_reason.
const (
	outcomeRunning = "running" // a run holds the session now
	outcomeKilled  = "killed"  // a run began and never finished (SIGKILL, OOM, power loss)
	outcomeUnknown = "unknown" // no record of its runs (a session from before kimi-run 0.x kept one)
)

// sessionMeta is the content of metaFile.
type sessionMeta struct {
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
}

// readMeta reads a session's meta file.
func readMeta(dir string) (sessionMeta, error) {
	var m sessionMeta
	b, err := infile.Read(context.Background(), filepath.Join(dir, metaFile), infile.SessionMeta)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", metaFile, err)
	}
	return m, nil
}

// writeMeta replaces a session's meta file atomically. When that fails (a full disk) the
// old file is removed, so that no stale outcome survives: the session then lists as unknown.
func writeMeta(dir string, m sessionMeta) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, metaFile)
	tmp := path + ".tmp"
	err = os.WriteFile(tmp, append(b, '\n'), 0o600)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		os.Remove(path)
		return fmt.Errorf("record the session's outcome: %w", err)
	}
	return nil
}

// firstLine is the first non-blank line of a prompt, shortened for a listing.
func firstLine(s string) string {
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

// sessionInfo is one session as a listing shows it.
type sessionInfo struct {
	sessionMeta
	// State is Outcome as it stands now: a "running" session whose lock is free was killed.
	State string
}

// unfinished says the session's last run ended without doing its job (a failure, a limit,
// a signal, a kill): the kind of session a retry should resume.
func (s sessionInfo) unfinished() bool {
	switch s.State {
	case "completed", "stop", outcomeRunning, outcomeUnknown:
		return false
	}
	return true
}

// describe says in a few words how the session's last run ended.
func (s sessionInfo) describe() string {
	switch {
	case s.State == outcomeKilled:
		return "killed: its last run never finished"
	case s.ExitCode != nil:
		return fmt.Sprintf("%s, exit %d", s.State, *s.ExitCode)
	}
	return s.State
}

// loadSession describes the session in dir; ok is false when dir holds none.
func loadSession(dir string) (info sessionInfo, ok bool) {
	m, err := readMeta(dir)
	if err != nil {
		fi, serr := os.Stat(filepath.Join(dir, contextFile))
		if serr != nil {
			return info, false
		}
		m = sessionMeta{ID: filepath.Base(dir), Created: fi.ModTime(), Started: fi.ModTime(), Outcome: outcomeUnknown}
	}
	m.ID = filepath.Base(dir)
	info = sessionInfo{sessionMeta: m, State: m.Outcome}
	if m.Outcome == outcomeRunning && !lockHeld(dir) {
		info.State = outcomeKilled
	}
	return info, true
}

// listSessions describes every session under root, newest run first.
func listSessions(root string) ([]sessionInfo, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []sessionInfo
	for _, e := range entries {
		if !e.IsDir() || !validSessionID(e.Name()) {
			continue
		}
		if info, ok := loadSession(filepath.Join(root, e.Name())); ok {
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

// newestUnfinished is the newest session under root whose last run did not finish its job
// and began after since (zero: any time), other than skip.
func newestUnfinished(root, skip string, since time.Time) (sessionInfo, bool) {
	all, err := listSessions(root)
	if err != nil {
		return sessionInfo{}, false
	}
	for _, s := range all {
		if s.ID != skip && s.unfinished() && s.Started.After(since) {
			return s, true
		}
	}
	return sessionInfo{}, false
}

// lockHeld reports whether a run holds the session in dir now.
func lockHeld(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := tryLock(f); err != nil {
		return errors.Is(err, errLocked)
	}
	_ = unlock(f)
	return false
}

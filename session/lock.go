package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/infile"
)

// lockFile is the file in a session's folder that one run at a time holds locked: two runs
// appending to one context.jsonl would interleave their records and garble the history
// the next resume sends to the model.
const lockFile = "kimi-run.lock"

// lockPoll is how often a run waiting for a session (--session-wait) tries the lock again.
const lockPoll = 50 * time.Millisecond

// errLocked means another process holds the lock.
var errLocked = errors.New("locked")

// BusyError means another run holds the session: exit 75 (terminal_reason busy), for a
// scheduler a temporary condition worth retrying later, not a command to fix.
type BusyError struct{ Msg string }

func (e *BusyError) Error() string { return e.Msg }

// Lock is an exclusive lock on one session, held until Unlock or the process ends
// (the kernel releases it then, whatever way the process ended).
type Lock struct{ f *os.File }

// TakeLock takes the lock of the session in dir. When another run holds it, it fails at
// once with a *BusyError, or, with wait > 0, tries again until wait has passed, calling
// notice once to say what it waits for.
func TakeLock(ctx context.Context, dir, id string, wait time.Duration, notice func(string)) (*Lock, error) {
	return takeLock(ctx, dir, id, wait, notice, false)
}

// TakeSharedLock takes the session's lock shared with other readers, as a fork that copies
// it does: many forks of one session copy it at once, while a run that writes it (holding
// TakeLock's exclusive lock) keeps them all out, and they keep it out.
func TakeSharedLock(ctx context.Context, dir, id string, wait time.Duration, notice func(string)) (*Lock, error) {
	return takeLock(ctx, dir, id, wait, notice, true)
}

func takeLock(ctx context.Context, dir, id string, wait time.Duration, notice func(string), shared bool) (*Lock, error) {
	path := filepath.Join(dir, lockFile)
	// Go opens files close-on-exec: commands the agent runs never inherit the lock.
	f, err := beneath.Open(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	noticed := false
	for {
		err := tryLock(f, shared)
		if err == nil && !shared {
			// Say who holds it, for the message of the next run that finds it taken.
			_ = f.Truncate(0)
			_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		if err == nil {
			return &Lock{f: f}, nil
		}
		if !errors.Is(err, errLocked) {
			f.Close()
			return nil, fmt.Errorf("lock session %s: %w", id, err)
		}
		holder := lockHolder(path)
		if wait <= 0 || !time.Now().Before(deadline) {
			f.Close()
			if wait > 0 {
				return nil, &BusyError{Msg: fmt.Sprintf("session %s is still in use by another run%s after waiting %s", id, holder, wait)}
			}
			return nil, &BusyError{Msg: fmt.Sprintf("session %s is in use by another run%s; wait for it to end, pass --session-wait DURATION to wait, or use another --session", id, holder)}
		}
		if !noticed {
			notice(fmt.Sprintf("waiting up to %s for session %s, which is in use by another run%s", wait, id, holder))
			noticed = true
		}
		t := time.NewTimer(min(lockPoll, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, context.Cause(ctx)
		case <-t.C:
		}
	}
}

// lockHolder describes the process that holds the lock, as far as the file tells.
func lockHolder(path string) string {
	b, err := infile.Read(context.Background(), path, infile.SessionMeta)
	if err != nil {
		return ""
	}
	pid := strings.TrimSpace(string(b))
	if _, err := strconv.Atoi(pid); err != nil {
		return ""
	}
	return " (pid " + pid + ")"
}

// Unlock releases the lock; nil-safe.
func (l *Lock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	_ = unlock(l.f)
	l.f.Close()
	l.f = nil
}

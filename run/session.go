package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/kimi-run/kimi-run/agent"
)

const (
	contextFile = "context.jsonl"
	lastFile    = "last-session"
)

// validSessionID accepts 1 to 128 letters, digits, '.', '_' and '-', not starting with a dot
// or dash: the id names a directory. (A hand-written check: compiling the equivalent regexp
// cost a measurable share of start-up.)
func validSessionID(id string) bool {
	if len(id) == 0 || len(id) > 128 || id[0] == '.' || id[0] == '-' || id[0] == '_' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// sessionRoot is the folder holding this work dir's sessions: --session-dir, or a folder
// per work dir under the user's state directory.
func sessionRoot(cli *CLI, workDir string, getenv func(string) string) (string, error) {
	if cli.SessionDir != "" {
		return filepath.Abs(cli.SessionDir)
	}
	base := getenv("XDG_STATE_HOME")
	if base == "" {
		switch {
		case runtime.GOOS == "windows" && getenv("LOCALAPPDATA") != "":
			base = getenv("LOCALAPPDATA")
		case getenv("HOME") != "":
			base = filepath.Join(getenv("HOME"), ".local", "state")
		default:
			return "", errNoStateDir
		}
	}
	sum := sha256.Sum256([]byte(workDir))
	return filepath.Join(base, "kimi-run", "sessions", hex.EncodeToString(sum[:8])), nil
}

// errNoStateDir means there is nowhere to keep sessions by default.
var errNoStateDir = usagef("cannot find a place for sessions: set HOME or XDG_STATE_HOME, or pass --session-dir DIR")

// sessionPlan is the session a run writes to.
type sessionPlan struct {
	warning  string
	id       string
	root     string
	session  *agent.Session
	restored *agent.Restored
	lock     *sessionLock
}

// close closes the context file and releases the session's lock.
func (p sessionPlan) close() {
	if p.session != nil {
		p.session.Close()
	}
	p.lock.Unlock()
}

// openSession creates or resumes the run's session as the flags say, and locks it for this
// run (see lockSession; notice reports a wait for the lock).
func openSession(ctx context.Context, cli *CLI, workDir string, getenv func(string) string, secret string, notice func(string)) (sessionPlan, error) {
	var p sessionPlan
	if cli.NoSession {
		if cli.Session != "" || cli.Continue {
			return p, usagef("--no-session cannot be combined with --session or --continue")
		}
		return p, nil
	}
	if cli.Session != "" && cli.Continue {
		return p, usagef("--session and --continue cannot be combined")
	}
	root, err := sessionRoot(cli, workDir, getenv)
	if errors.Is(err, errNoStateDir) && cli.Session == "" && !cli.Continue {
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
		b, err := os.ReadFile(filepath.Join(root, lastFile))
		if err != nil {
			return p, usagef("no earlier session to continue for %s (in %s)", workDir, root)
		}
		p.id = strings.TrimSpace(string(b))
	case cli.Session != "":
		p.id = cli.Session
	default:
		p.id = newID()
	}
	if !validSessionID(p.id) {
		return p, usagef("invalid session id %q: use letters, digits, '.', '_' and '-'", p.id)
	}
	explicit := cli.Session != "" || cli.Continue
	dir := filepath.Join(root, p.id)
	path := filepath.Join(dir, contextFile)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return p.unsaved(explicit, root, err)
	}
	lock, err := lockSession(ctx, dir, p.id, cli.SessionWait, notice)
	var ue *usageError
	var be *busyError
	switch {
	case errors.As(err, &ue) || errors.As(err, &be) || ctx.Err() != nil:
		return p, err
	case err != nil:
		return p.unsaved(explicit, root, err)
	}
	p.lock = lock
	p, err = p.open(ctx, cli, workDir, path, secret, explicit, root)
	if err != nil || p.session == nil {
		lock.Unlock()
	}
	return p, err
}

// open resumes or creates the session's context file, the lock taken.
func (p sessionPlan) open(ctx context.Context, cli *CLI, workDir, path, secret string, explicit bool, root string) (sessionPlan, error) {
	opt := agent.WithRedact(func(line string) string { return redact(line, secret) })
	if _, err := os.Stat(path); err == nil {
		p.session, p.restored, err = agent.OpenSession(ctx, path, opt)
		if err != nil && ctx.Err() != nil {
			return p, context.Cause(ctx) // a signal or --timeout during a long restore
		}
		if err != nil {
			return p.unsaved(explicit, root, fmt.Errorf("resume session %s: %w", p.id, err))
		}
		return p, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return p.unsaved(explicit, root, err)
	}
	if cli.Continue {
		return p, usagef("the last session %s of %s has no context file", p.id, workDir)
	}
	s, err := agent.CreateSession(path, opt)
	if err != nil {
		return p.unsaved(explicit, root, err)
	}
	p.session = s
	return p, nil
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
// failed night is not what the next one continues by accident.
func (p sessionPlan) recordLast() error {
	if p.session == nil {
		return nil
	}
	tmp := filepath.Join(p.root, lastFile+".tmp")
	if err := os.WriteFile(tmp, []byte(p.id+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(p.root, lastFile))
}

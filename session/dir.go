package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"runtime"
)

// ContextFile is the conversation's file in a session's folder (Kimi CLI's name).
const ContextFile = "context.jsonl"

// ValidID accepts 1 to 128 letters, digits, '.', '_' and '-', not starting with a dot
// or dash: the id names a directory. (A hand-written check: compiling the equivalent regexp
// cost a measurable share of start-up.)
func ValidID(id string) bool {
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

// Root is the folder holding the sessions of workDir: sessionDir (--session-dir), or a
// folder per work dir under the user's state directory, found through getenv.
func Root(sessionDir, workDir string, getenv func(string) string) (string, error) {
	if sessionDir != "" {
		return filepath.Abs(sessionDir)
	}
	base := getenv("XDG_STATE_HOME")
	if base == "" {
		switch {
		case runtime.GOOS == "windows" && getenv("LOCALAPPDATA") != "":
			base = getenv("LOCALAPPDATA")
		case getenv("HOME") != "":
			base = filepath.Join(getenv("HOME"), ".local", "state")
		default:
			return "", ErrNoStateDir
		}
	}
	sum := sha256.Sum256([]byte(workDir))
	return filepath.Join(base, "kimi-run", "sessions", hex.EncodeToString(sum[:8])), nil
}

// ErrNoStateDir means there is nowhere to keep sessions by default.
var ErrNoStateDir = errors.New("cannot find a place for sessions: set HOME or XDG_STATE_HOME, or pass --session-dir DIR")

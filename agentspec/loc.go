package agentspec

import (
	"context"
	"path"
	"path/filepath"
	"strings"

	"github.com/kimi-run/kimi-run/internal/infile"
)

// loc is a file: in the embedded built-in agents, or on disk.
type loc struct {
	builtin bool
	path    string // slash path in builtinFS, or an absolute OS path
}

func (l loc) String() string {
	if l.builtin {
		return "builtin:" + strings.TrimPrefix(l.path, "builtin/")
	}
	return l.path
}

func (l loc) read() ([]byte, error) {
	if l.builtin {
		return builtinFS.ReadFile(l.path)
	}
	// A regular file only, so reading it never waits (see infile.AgentFile).
	return infile.Read(context.Background(), l.path, infile.AgentFile)
}

// dir is the directory of l, as a loc to join names to.
func (l loc) dir() loc {
	if l.builtin {
		return loc{builtin: true, path: path.Dir(l.path)}
	}
	return loc{path: filepath.Dir(l.path)}
}

// join resolves name against the directory l. Built-in agents only refer to one another.
func (l loc) join(name string) loc {
	if l.builtin {
		return loc{builtin: true, path: path.Clean(path.Join(l.path, name))}
	}
	if filepath.IsAbs(name) {
		return loc{path: filepath.Clean(name)}
	}
	return loc{path: filepath.Join(l.path, name)}
}

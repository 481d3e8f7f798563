package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// errEmptyPath is returned by ResolvePath for an empty path argument.
var errEmptyPath = errors.New("path is empty")

// ResolvePath turns a path argument of ReadFile, WriteFile or StrReplaceFile into an
// absolute, cleaned path; the sandbox checks a call's path with it before the tool runs.
//
// The agent is not sandboxed: an absolute path may name any file the process can reach,
// and "~" or "~/..." expands to the home directory. A relative path resolves against
// workDir and must stay inside it or inside one of addDirs (the --add-dir directories,
// absolute): "../x" is refused otherwise, as Kimi CLI does, because a model that walks
// out of its workspace with ".." has usually lost track of where it is. Going outside on
// purpose takes an absolute path. This is a guard against mistakes, not a security
// boundary (symbolic links inside the work dir are followed freely).
func ResolvePath(workDir, p string, addDirs ...string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", errEmptyPath
	}
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("expand %q: %w", p, err)
		}
		return filepath.Join(home, p[1:]), nil
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	base := workDir
	if base == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("resolve %q: %w", p, err)
		}
		base = wd
	}
	rel := filepath.Clean(p)
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		abs := filepath.Join(base, rel)
		for _, d := range addDirs {
			if within(abs, d) {
				return abs, nil
			}
		}
		return "", fmt.Errorf("relative path %q leads outside the work dir %s; use an absolute path to reach files there", p, base)
	}
	return filepath.Join(base, rel), nil
}

// within reports whether path is dir or lies below it; both are absolute and clean.
func within(path, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

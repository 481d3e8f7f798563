package search

import (
	"path/filepath"
	"strings"
)

// DisplayPath returns how a found path is shown to the model: relative to workDir when
// it lies inside it, absolute otherwise, with forward slashes.
func DisplayPath(workDir, abs string) string {
	abs = filepath.FromSlash(abs)
	if workDir != "" {
		if rel, err := filepath.Rel(workDir, abs); err == nil && rel != ".." &&
			!strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(abs)
}

// relSlash returns target relative to base with forward slashes, "" when equal.
func relSlash(base, target string) string {
	rel, err := filepath.Rel(base, target)
	if err != nil || rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

func joinRel(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "/" + b
}

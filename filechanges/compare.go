package filechanges

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kimi-run/kimi-run/event"
)

// maxTracked is the largest file whose lines files_changed counts; a larger one is listed
// without line counts, as a binary file is.
const maxTracked = 8 << 20

// binaryProbe is how much of a file is looked at for a NUL byte, as git does.
const binaryProbe = 8000

// readTracked reads a file for comparison: whether it exists, and its content unless it is
// not a regular file or larger than maxTracked (big).
func readTracked(path string) (exists bool, content []byte, big bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return false, nil, false
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxTracked {
		return true, nil, true
	}
	f, err := os.Open(path)
	if err != nil {
		return true, nil, true
	}
	defer f.Close()
	content, err = io.ReadAll(io.LimitReader(f, maxTracked+1))
	if err != nil || len(content) > maxTracked {
		return true, nil, true
	}
	return true, content, false
}

// fileChange is git's view of one file as the result lists it.
func fileChange(d gitChange) event.FileChange {
	fc := event.FileChange{Change: "modified", LinesAdded: d.added, LinesRemoved: d.removed, Binary: d.binary}
	switch d.status {
	case 'A':
		fc.Change = "created"
	case 'D':
		fc.Change = "deleted"
	}
	return fc
}

// compareOriginal compares what a file tool's target held before with what it holds now.
func compareOriginal(path string, o *original) (event.FileChange, bool) {
	exists, content, big := readTracked(path)
	var fc event.FileChange
	switch {
	case !o.existed && !exists:
		return fc, false
	case !o.existed:
		fc.Change = "created"
	case !exists:
		fc.Change = "deleted"
	default:
		fc.Change = "modified"
		if !o.big && !big && string(o.content) == string(content) {
			return fc, false
		}
	}
	if o.big || big || isBinary(o.content) || isBinary(content) {
		fc.Binary = true
		return fc, true
	}
	fc.LinesAdded, fc.LinesRemoved = lineCounts(o.content, content)
	return fc, true
}

// isBinary says whether b looks binary as git decides it: a NUL byte near the start.
func isBinary(b []byte) bool {
	return slices.Contains(b[:min(len(b), binaryProbe)], 0)
}

// within reports whether path is dir or below it (both clean and absolute).
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator)) || dir == string(filepath.Separator)
}

// realPath resolves the symbolic links of the longest existing part of path's directory;
// the rest is kept as written (directories and a file not created yet; the file itself,
// which may be a link the file tools replace).
func realPath(path string) string {
	path = filepath.Clean(path)
	dir, rest := filepath.Dir(path), []string{filepath.Base(path)}
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return path
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
		dir = parent
	}
}

// realDir is path with its symbolic links resolved, or path when that fails.
func realDir(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return filepath.Clean(path)
}

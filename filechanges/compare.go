package filechanges

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/beneath"
)

// maxTracked is the largest file whose lines files_changed counts; a larger one is listed
// without line counts, as a binary file is.
const maxTracked = 8 << 20

// binaryProbe is how much of a file is looked at for a NUL byte, as git does.
const binaryProbe = 8000

// readTracked reads a file for comparison: whether it exists, and its content unless it is
// not a regular file or larger than maxTracked (big). A path that leads through a link
// holds no file, as git sees it (openNoLink).
func readTracked(path string, roots []string) (exists bool, content []byte, big bool) {
	f, fi, err := openNoLink(path, roots)
	switch {
	case errors.Is(err, beneath.ErrLink) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return false, nil, false
	case err != nil || f == nil:
		return true, nil, true
	}
	defer f.Close()
	if fi.Size() > maxTracked {
		return true, nil, true
	}
	content, err = io.ReadAll(io.LimitReader(f, maxTracked+1))
	if err != nil || len(content) > maxTracked {
		return true, nil, true
	}
	return true, content, false
}

// openNoLink opens the regular file at path for reading below the longest of roots it lies
// below (beneath.Split: its own directory when none), following no link on the way or at
// its name: a command can plant one. What is no regular file is not read (f is nil, fi says
// what it is): an Lstat first keeps a device from being opened at all (its open can act),
// and the open file's own Fstat is what counts (a FIFO swapped in meanwhile is opened
// without waiting). Every file of the work tree kimi-run reads itself, not through git, is
// opened here.
func openNoLink(path string, roots []string) (f *os.File, fi fs.FileInfo, err error) {
	if fi, err = os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, fi, err
	}
	root, rel := beneath.Split(path, roots)
	dir, err := beneath.OpenDir(root, filepath.Dir(rel))
	if err != nil {
		return nil, nil, err
	}
	defer dir.Close()
	if f, err = beneath.OpenFile(dir, filepath.Base(rel), os.O_RDONLY|syscall.O_NONBLOCK, 0); err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, err
	}
	return f, fi, nil
}

// readSmall reads at most max bytes of the regular file at path, opened by openNoLink.
func readSmall(path string, roots []string, max int64) ([]byte, error) {
	f, _, err := openNoLink(path, roots)
	if err == nil && f == nil {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
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
func compareOriginal(path string, roots []string, o *original) (event.FileChange, bool) {
	exists, content, big := readTracked(path, roots)
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

package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/tools"
)

// maxTracked is the largest file whose lines files_changed counts; a larger one is listed
// without line counts, as a binary file is.
const maxTracked = 8 << 20

// binaryProbe is how much of a file is looked at for a NUL byte, as git does.
const binaryProbe = 8000

// changes finds the files a run created, modified or deleted under its work dirs, for
// result.files_changed (issue 32 #1), from two sources:
//
//   - The file tools: before a WriteFile or StrReplaceFile call first touches a path, its
//     content is kept; at the end it is compared with what is there.
//   - git, for what commands (Shell) and MCP servers change: before the first such call,
//     the state of every work dir in a git repository is written as a tree (gitRepo); at
//     the end a second tree is written and the two are compared.
//
// So a run that only reads, or only uses the file tools, never runs git. A path both
// sources know is counted by the one that saw it first.
type changes struct {
	workDir string   // the work dir, a real path
	dirs    []string // the work dir and the --add-dir dirs, real paths
	exclude []string // kimi-run's own files under them: sessions, the answer file, a cassette
	git     gitRunner
	warn    func(string)

	mu      sync.Mutex
	seq     int // orders the first touches and the snapshot
	touched map[string]*original
	snapped bool // a call that may change files in other ways has started
	snapSeq int
	repos   []*gitRepo
	// unseen are the work dirs whose changes by commands cannot be known: in no git
	// repository, or git failed there.
	unseen []string
}

// original is a file as it was before the run's file tools first touched it.
type original struct {
	seq     int
	existed bool
	content []byte
	big     bool // larger than maxTracked, or not a regular file
}

// newChanges tracks the changes under workDir and addDirs; exclude are files and dirs of
// kimi-run's own that are not the run's work.
func newChanges(workDir string, addDirs []string, exclude []string, g gitRunner, warn func(string)) *changes {
	c := &changes{workDir: realDir(workDir), git: g, warn: warn, touched: map[string]*original{}}
	c.dirs = []string{c.workDir}
	for _, d := range addDirs {
		c.dirs = append(c.dirs, realDir(d))
	}
	for _, e := range exclude {
		if e != "" {
			c.exclude = append(c.exclude, realPath(e))
		}
	}
	return c
}

// wrap watches the calls of ts that may change files: the file tools' by their path
// argument, commands' and MCP servers' by the snapshot before the first of them.
func (c *changes) wrap(ts []tools.Tool) []tools.Tool {
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = t
		f := t.Facts()
		switch {
		case f.ReadOnly:
		case f.Where == tools.InProcess && f.WritesFiles && f.PathArg != "":
			out[i] = watched{Tool: t, c: c, pathArg: f.PathArg}
		case f.Where != tools.InProcess:
			out[i] = watched{Tool: t, c: c, command: true}
		}
	}
	return out
}

// watched is a tool whose calls the changes tracker sees before they run.
type watched struct {
	tools.Tool
	c       *changes
	pathArg string
	command bool
}

// Run implements tools.Tool.
func (w watched) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	if w.command {
		w.c.beforeCommand(ctx)
	} else if p := pathArgument(args, w.pathArg, w.c.workDir); p != "" {
		w.c.remember(p)
	}
	return w.Tool.Run(ctx, args)
}

// pathArgument is the file a call's path argument names, as the file tools resolve it, or
// "" when there is none.
func pathArgument(args json.RawMessage, key, workDir string) string {
	var fields map[string]json.RawMessage
	var p string
	if json.Unmarshal(args, &fields) != nil || json.Unmarshal(fields[key], &p) != nil || strings.TrimSpace(p) == "" {
		return ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(workDir, p)
	}
	return realPath(p)
}

// remember keeps what path holds before the file tools first change it.
func (c *changes) remember(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.touched[path]; ok || !c.watches(path) {
		return
	}
	c.seq++
	o := &original{seq: c.seq}
	o.existed, o.content, o.big = readTracked(path)
	c.touched[path] = o
}

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

// beforeCommand takes the git snapshot before the first call that may change files other
// than through the file tools. Other calls wait for it, so none changes a file while it is
// taken, and the file tools' first touches are ordered with it.
func (c *changes) beforeCommand(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snapped {
		return
	}
	c.snapped = true
	c.seq++
	c.snapSeq = c.seq
	repos, unseen := findRepos(ctx, c.git, c.dirs)
	c.unseen = unseen
	for _, r := range repos {
		err := r.snapshot(ctx, c.git)
		if r.tmp != "" {
			c.exclude = append(c.exclude, realDir(r.tmp))
		}
		if err != nil {
			r.close()
			c.unseen = append(c.unseen, r.dirs...)
			c.warn(fmt.Sprintf("files_changed: cannot take the state of %s before the commands run (%v): what commands change there is not listed", r.top, err))
			continue
		}
		c.repos = append(c.repos, r)
	}
}

// watches reports whether path is under a work dir and not one of kimi-run's own files.
func (c *changes) watches(path string) bool {
	for _, e := range c.exclude {
		if within(path, e) {
			return false
		}
	}
	for _, d := range c.dirs {
		if within(path, d) {
			return true
		}
	}
	return false
}

// collect lists what changed, sorted by path, and the work dirs where commands ran whose
// changes could not be seen. It removes the snapshots' temp dirs.
func (c *changes) collect(ctx context.Context) (list []event.FileChange, unseen []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	found := map[string]event.FileChange{}
	for _, r := range c.repos {
		diff, err := r.changes(ctx, c.git)
		r.close()
		if err != nil {
			c.unseen = append(c.unseen, r.dirs...)
			c.warn(fmt.Sprintf("files_changed: cannot compare %s with its state before the commands ran (%v): what commands changed there is not listed", r.top, err))
			continue
		}
		for p, d := range diff {
			found[p] = fileChange(d)
		}
	}
	c.repos = nil
	for p, o := range c.touched {
		if _, ok := found[p]; ok && c.snapped && o.seq > c.snapSeq {
			continue // git saw the file as it was before the run: its count is whole
		}
		if fc, changed := compareOriginal(p, o); changed {
			found[p] = fc
		} else {
			delete(found, p) // back as it was
		}
	}
	for p, fc := range found {
		if !c.watches(p) {
			continue
		}
		fc.Path = c.display(p)
		list = append(list, fc)
	}
	slices.SortFunc(list, func(a, b event.FileChange) int { return strings.Compare(a.Path, b.Path) })
	if c.snapped {
		for _, d := range c.unseen {
			if p := c.display(d); !slices.Contains(unseen, p) {
				unseen = append(unseen, p)
			}
		}
	}
	return list, unseen
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

// display is path as the result names it: relative to the work dir (with slashes; the work
// dir itself is ".") when it is inside it, else absolute.
func (c *changes) display(path string) string {
	if rel, err := filepath.Rel(c.workDir, path); err == nil && within(path, c.workDir) {
		return filepath.ToSlash(rel)
	}
	return path
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

// collectGrace bounds the comparison of the files at the end of a run that was stopped (a
// signal, --timeout): the run must end promptly, and the list is worth a few seconds.
const collectGrace = 3 * time.Second

// afterRun is the context for the work that finishes a run: the run's own while it lasts
// (--timeout still holds), else a short one of its own.
func afterRun(ctx context.Context) context.Context {
	if ctx.Err() == nil {
		return ctx
	}
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), collectGrace)
	context.AfterFunc(c, cancel)
	return c
}

// Package filechanges finds the files a run created, modified or deleted under its work
// dirs, for result.files_changed, from two sources:
//
//   - The file tools: before a WriteFile or StrReplaceFile call first touches a path, its
//     content is kept; at the end it is compared with what is there.
//   - git, for what commands (Shell) and MCP servers change: before the first such call,
//     the state of every work dir in a git repository is written as a tree; at the end a
//     second tree is written and the two are compared. git runs with a repository of the
//     tracker's own and reads nothing the work dir can steer (see git).
//
// So a run that only reads, or only uses the file tools, never runs git. A path both
// sources know is counted by the one that saw it first. What it keeps lives in the
// session's folder until the run ends (see state), so that a killed run's turn, continued,
// is listed whole. kimi-run's own files (its session, its redirected output, -o) are never
// a change of the run.
package filechanges

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/launch"
)

// Config is what a Tracker watches and where it keeps its state.
type Config struct {
	// WorkDir and AddDirs are the run's work dirs.
	WorkDir string
	AddDirs []string
	// Exclude are kimi-run's own files and dirs under them (sessions, the answer file, a
	// cassette); Own are its open output files (stdout, stderr), wherever they are.
	Exclude []string
	Own     []*os.File
	// State is the dir the tracker keeps its state in, in the session's folder; "" is a
	// temp dir of its own. Turn names the turn the run works on (its prompt), "" for none:
	// a state a killed run left there for the same turn is taken up, any other removed.
	State string
	Turn  string
	// Launcher runs git; NoGit is --files-changed tools: git is never run. GitLimit bounds
	// git's work on one repository at the snapshot and at the comparison; 0 is gitLimit.
	Launcher *launch.Launcher
	NoGit    bool
	GitLimit time.Duration
	// Writable reports a path the run's confined commands can write; nil when they are not
	// confined. Git takes no orders from such a place, and a state there is not kept.
	Writable func(string) bool
	// GitSettings watches the repositories' config, hooks and info/ (see Tracker.Collect).
	GitSettings bool
	// Secret reports content that holds one of the run's credentials: it is never written
	// to the state (a resumed run lists such a file without line counts).
	Secret func(string) bool
	// Warn reports what cannot be seen.
	Warn func(string)
}

// Tracker tracks the changes of one run. Its methods are safe for concurrent use.
type Tracker struct {
	workDir string   // the work dir, a real path
	dirs    []string // the work dir and the --add-dir dirs, real paths
	exclude []string // kimi-run's own files under them
	own     []os.FileInfo
	git     git
	noGit   bool
	watch   bool
	// writable and secret are Config's.
	writable func(string) bool
	secret   func(string) bool
	warn     func(string)

	mu      sync.Mutex
	state   state
	seq     int // orders the first touches and the snapshot
	touched map[string]*original
	snapped bool // a call that may change files in other ways has started
	snapSeq int
	repos   []*repo
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

// New starts tracking the changes c names, taking up the state of a killed run of the
// same turn.
func New(c Config) *Tracker {
	if c.GitLimit <= 0 {
		c.GitLimit = gitLimit
	}
	t := &Tracker{workDir: realDir(c.WorkDir), git: git{launch: c.Launcher, limit: c.GitLimit}, noGit: c.NoGit, watch: c.GitSettings,
		writable: c.Writable, secret: c.Secret, warn: c.Warn, touched: map[string]*original{}}
	if c.Writable != nil && c.State != "" && c.Writable(c.State) {
		c.State = "" // a state the commands could change is not one to take up
	}
	t.dirs = []string{t.workDir}
	for _, d := range c.AddDirs {
		t.dirs = append(t.dirs, realDir(d))
	}
	for _, e := range append(c.Exclude, c.State) {
		if e != "" {
			t.exclude = append(t.exclude, realPath(e))
		}
	}
	for _, f := range c.Own {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			t.own = append(t.own, fi)
		}
	}
	t.state.dir, t.state.durable = c.State, c.State != ""
	if c.Turn != "" {
		sum := sha256.Sum256([]byte(c.Turn))
		t.state.open.Turn = hex.EncodeToString(sum[:])
	}
	recs, linked := t.state.load(t.state.open.Turn)
	if linked && t.warn != nil {
		t.warn(fmt.Sprintf("files_changed: the state a killed run left in %s holds a symbolic link, and is not taken up: what that run changed is not listed", t.state.dir))
	}
	for _, rec := range recs {
		t.seq = max(t.seq, rec.Seq)
		switch {
		case rec.Snapped:
			t.snapped, t.snapSeq, t.repos, t.unseen = true, rec.Seq, rec.Repos, rec.Unseen
			for i, r := range t.repos {
				r.Data = t.state.data(i) // the state's own place, not the one the log names
			}
		case rec.Path != "":
			t.touched[rec.Path] = &original{seq: rec.Seq, existed: rec.Existed, content: rec.Content, big: rec.Big}
		}
	}
	return t
}

// remember keeps what path (absolute, links resolved as realPath does) holds before the
// file tools first change it.
func (t *Tracker) remember(path string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.touched[path]; ok || !t.watches(path) {
		return
	}
	t.begin()
	t.seq++
	o := &original{seq: t.seq}
	o.existed, o.content, o.big = readTracked(path, t.dirs)
	t.touched[path] = o
	rec := record{Seq: o.seq, Path: path, Existed: o.existed, Big: o.big, Content: o.content}
	if t.secret != nil && t.secret(string(o.content)) {
		rec.Big, rec.Content = true, nil
	}
	t.state.add(rec)
}

// begin takes the git settings as they are before the run's first call that may change
// files: a killed run's, when this run takes its state up.
func (t *Tracker) begin() {
	if t.watch && t.state.open.Settings == nil {
		t.state.open.Settings = settings(t.dirs)
	}
}

// beforeCommand takes the git snapshot before the first call that may change files other
// than through the file tools. Other calls wait for it, so none changes a file while it is
// taken, and the file tools' first touches are ordered with it.
func (t *Tracker) beforeCommand(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.snapped {
		return
	}
	t.begin()
	t.snapped = true
	t.seq++
	t.snapSeq = t.seq
	t.repos, t.unseen = t.snapshot(ctx)
	t.state.add(record{Seq: t.snapSeq, Snapped: true, Repos: t.repos, Unseen: t.unseen})
}

// Git reports whether the tracker runs git before commands: an MCP tool's call then
// starts a process (git) although the server runs already.
func (t *Tracker) Git() bool { return !t.noGit }

// snapshot finds the repository of each work dir and writes its tree. The work dirs in
// none, or where git fails, are returned as unseen.
func (t *Tracker) snapshot(ctx context.Context) (repos []*repo, unseen []string) {
	if t.noGit {
		return nil, t.dirs
	}
	byTop := map[string]*repo{}
	index := map[*repo]string{}
	for _, d := range t.dirs {
		top, gitDir, objects, ok := findRepo(d)
		if !ok {
			unseen = append(unseen, d)
			continue
		}
		top = realDir(top)
		r := byTop[top]
		if r == nil {
			r = &repo{Top: top, Objects: objects}
			byTop[top], index[r] = r, filepath.Join(gitDir, "index")
			repos = append(repos, r)
		}
		r.Dirs = append(r.Dirs, d)
	}
	if len(repos) == 0 {
		return nil, unseen
	}
	dir, setupErr := t.state.mkdir()
	if setupErr == nil && t.writable != nil && t.writable(dir) {
		setupErr = fmt.Errorf("%s is writable to the run's commands", dir) // git writes there by path
	}
	if setupErr == nil {
		t.exclude = append(t.exclude, realDir(dir)) // a temp dir may be in the work tree
		setupErr = t.gitDir()
	}
	var ok []*repo
	for i, r := range repos {
		r.Data, r.Exclude = t.state.data(i), t.exclude
		err := setupErr
		if err == nil {
			err = t.git.start(ctx, r, index[r])
		}
		if err != nil {
			unseen = append(unseen, r.Dirs...)
			t.warn(fmt.Sprintf("files_changed: cannot take the state of %s before the commands run (%v): what commands change there is not listed", r.Top, err))
			continue
		}
		ok = append(ok, r)
	}
	return ok, unseen
}

// gitDir makes the run's git dir, once, and counts it as kimi-run's own: a TMPDIR may be in
// the work tree.
func (t *Tracker) gitDir() error {
	if t.git.dir != "" {
		return nil
	}
	if err := t.git.gitDir(t.writable); err != nil {
		return err
	}
	t.exclude = append(t.exclude, realDir(t.git.dir))
	return nil
}

// watches reports whether path is under a work dir and not one of kimi-run's own files.
func (t *Tracker) watches(path string) bool {
	for _, e := range t.exclude {
		if within(path, e) {
			return false
		}
	}
	for _, d := range t.dirs {
		if within(path, d) {
			return true
		}
	}
	return false
}

// collectGrace bounds Collect's comparison at the end of a run that was stopped.
const collectGrace = 3 * time.Second

// Collect lists what changed, sorted by path; the work dirs where commands ran whose
// changes could not be seen; and, when the tracker watches them, the repositories' git
// settings the run changed. It removes the tracker's state. When ctx has ended (the run was
// stopped: a signal, --timeout) it gets a few seconds of its own: the run must end
// promptly, and the list is worth them.
func (t *Tracker) Collect(ctx context.Context) (list []event.FileChange, unseen, gitSettings []string) {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), collectGrace)
		defer cancel()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.state.remove()
	defer t.git.remove()
	found := map[string]event.FileChange{}
	var dirErr error
	if len(t.repos) > 0 {
		dirErr = t.gitDir() // a resumed run's first
	}
	for _, r := range t.repos {
		diff, err := map[string]gitChange(nil), dirErr
		if err == nil {
			diff, err = t.git.changes(ctx, r)
		}
		if err != nil {
			t.unseen = append(t.unseen, r.Dirs...)
			t.warn(fmt.Sprintf("files_changed: cannot compare %s with its state before the commands ran (%v): what commands changed there is not listed", r.Top, err))
			continue
		}
		for p, d := range diff {
			found[p] = fileChange(d)
		}
	}
	t.repos = nil
	for p, o := range t.touched {
		if _, ok := found[p]; ok && t.snapped && o.seq > t.snapSeq {
			continue // git saw the file as it was before the run: its count is whole
		}
		if fc, changed := compareOriginal(p, t.dirs, o); changed {
			found[p] = fc
		} else {
			delete(found, p) // back as it was
		}
	}
	for p, fc := range found {
		if !t.watches(p) || t.isOwn(p) {
			continue
		}
		fc.Path = t.display(p)
		list = append(list, fc)
	}
	slices.SortFunc(list, func(a, b event.FileChange) int { return strings.Compare(a.Path, b.Path) })
	if t.snapped {
		for _, d := range t.unseen {
			if p := t.display(d); !slices.Contains(unseen, p) {
				unseen = append(unseen, p)
			}
		}
	}
	if t.watch && t.state.open.Settings != nil {
		for _, p := range changedSettings(t.state.open.Settings, settings(t.dirs)) {
			gitSettings = append(gitSettings, t.display(p))
		}
	}
	return list, unseen, gitSettings
}

// isOwn reports whether path is one of kimi-run's open output files.
func (t *Tracker) isOwn(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && slices.ContainsFunc(t.own, func(o os.FileInfo) bool { return os.SameFile(o, fi) })
}

// display is path as the result names it: relative to the work dir (with slashes; the work
// dir itself is ".") when it is inside it, else absolute.
func (t *Tracker) display(path string) string {
	if rel, err := filepath.Rel(t.workDir, path); err == nil && within(path, t.workDir) {
		return filepath.ToSlash(rel)
	}
	return path
}

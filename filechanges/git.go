package filechanges

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/launch"
)

// git runs git for the tracker, through the run's launcher and unconfined, so that it
// reads nothing the work dir can steer. Its git dir (dir) is a fresh temp dir of the run's
// own that only kimi-run can write: a HEAD, an empty refs/ and no config, hooks or info/.
// The index and the objects it writes are the tracker's, in its state; the work tree's
// repository's objects are read as alternates. Neither the system's nor the user's config
// is read, nor any given in the environment. So the work tree's own .git is never opened
// by git: its config, hooks, fsmonitor and filters do not apply, and nothing is written
// there. What .gitattributes can still do without a configured driver is in-process and
// bounded (line-end and encoding conversion, ident, the binary mark): it changes what is
// compared, never what runs. What the state holds is data: tampered with, it can change
// the list, not what runs.
type git struct {
	launch *launch.Launcher
	dir    string        // the git dir, made at the first call (gitDir)
	limit  time.Duration // bounds git's work on one repository (gitLimit)
}

// gitLimit bounds the git calls of one snapshot, and of one comparison, of a repository.
// git blocks for good opening a FIFO a command put among the repository's objects; this
// bound ends that wait when the run's own (--timeout, a signal) does not. Five minutes let
// git hash tens of gigabytes from a cold disk on a normal machine, more than a large
// repository's first snapshot reads; a run that hits it lists the repository as unseen.
const gitLimit = 5 * time.Minute

// bound is ctx bounded by g's limit; git cut short by it fails saying so.
func (g git) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, g.limit, fmt.Errorf("git did not finish within %v", g.limit))
}

// run runs git args for repository r and returns its stdout; a failure says what git said
// on stderr.
func (g git) run(ctx context.Context, r *repo, args ...string) ([]byte, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	p, err := g.launch.Start(launch.Spec{Path: "git", Args: append([]string{"git"}, args...),
		Env: r.env(g.dir), Dir: r.Top, Stdout: outW, Stderr: errW})
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	stderr := &launch.Head{Max: 2 << 10}
	errDone := make(chan struct{})
	go func() {
		_, _ = io.Copy(stderr, errR)
		close(errDone)
	}()
	stop := context.AfterFunc(ctx, func() { _ = p.Signal(true) })
	out, readErr := io.ReadAll(outR)
	state := p.Wait()
	stop()
	<-errDone
	outR.Close()
	errR.Close()
	switch {
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case !state.Success():
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = state.String()
		}
		line, _, _ := strings.Cut(msg, "\n")
		return nil, fmt.Errorf("git %s: %s", args[0], line)
	case readErr != nil:
		return nil, readErr
	}
	return out, nil
}

// repo is one repository holding work dirs, as the state records it.
type repo struct {
	Top     string   `json:"top"`     // the work tree's top, a real path
	Objects string   `json:"objects"` // the repository's object store, read as alternates
	Dirs    []string `json:"dirs"`    // the work dirs in it, real paths
	Data    string   `json:"data"`    // the tracker's index and objects for it
	Before  string   `json:"before"`  // the tree of the work dirs when the snapshot was taken
	Exclude []string `json:"exclude"` // kimi-run's own files and dirs under Top
}

// env is all of git's environment that matters, with gitDir as the git dir: set last, it
// wins over anything of the same name the children's environment holds.
func (r *repo) env(gitDir string) []string {
	return []string{
		"GIT_DIR=" + gitDir, "GIT_COMMON_DIR=" + gitDir, "GIT_WORK_TREE=" + r.Top,
		"GIT_INDEX_FILE=" + filepath.Join(r.Data, "index"),
		"GIT_OBJECT_DIRECTORY=" + filepath.Join(r.Data, "objects"),
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + r.Objects,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_COUNT=0", "GIT_CONFIG_PARAMETERS=",
		"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C",
	}
}

// gitDir makes the run's git dir, once; writable reports a dir the run's confined
// commands can write (nil: none are confined), where git must not look for its config.
func (g *git) gitDir(writable func(string) bool) error {
	if g.dir != "" {
		return nil
	}
	d, err := os.MkdirTemp("", "kimi-run-git-")
	if err != nil {
		return err
	}
	if writable != nil && writable(d) {
		os.Remove(d)
		return fmt.Errorf("the temp dir %s is writable to the run's commands", filepath.Dir(d))
	}
	if err := os.Mkdir(filepath.Join(d, "refs"), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(d, "HEAD"), []byte("ref: refs/heads/snapshot\n"), 0o600); err != nil {
		return err
	}
	g.dir = d
	return nil
}

// findRepo finds the repository whose work tree holds dir, by looking for .git in dir and
// its parents (no git is run): top is the work tree's top, gitDir its git dir. The files
// it reads (a .git file, commondir) are small and regular, read by readSmall: a link, a
// FIFO or a device a command put in their place leads nowhere and blocks nothing.
func findRepo(dir string) (top, gitDir, objects string, ok bool) {
	for top = dir; ; top = filepath.Dir(top) {
		dot := filepath.Join(top, ".git")
		if fi, err := os.Stat(dot); err == nil {
			gitDir = dot
			if !fi.IsDir() { // a linked work tree or a submodule: "gitdir: PATH"
				b, err := readSmall(dot, []string{top}, 4<<10)
				p, found := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
				if err != nil || !found {
					return "", "", "", false
				}
				gitDir = absUnder(top, p)
			}
			common := gitDir
			if b, err := readSmall(filepath.Join(gitDir, "commondir"), []string{top}, 4<<10); err == nil {
				common = absUnder(gitDir, strings.TrimSpace(string(b)))
			}
			objects = filepath.Join(common, "objects")
			if fi, err := os.Stat(objects); err != nil || !fi.IsDir() {
				return "", "", "", false
			}
			return top, gitDir, objects, true
		}
		if filepath.Dir(top) == top {
			return "", "", "", false
		}
	}
}

func absUnder(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// start makes the tracker's data for r, with a copy of the repository's index (its stat
// cache spares reading the files that did not change since it was written), and writes
// the tree of the work dirs as they are now.
func (g git) start(ctx context.Context, r *repo, index string) error {
	ctx, cancel := g.bound(ctx)
	defer cancel()
	if err := checkStore(r.Objects); err != nil {
		return err
	}
	objects, err := beneath.Dir(filepath.Join(r.Data, "objects"), true, 0o700)
	if err != nil {
		return err
	}
	objects.Close()
	if err := copyIndex(index, r.Top, filepath.Join(r.Data, "index")); err != nil {
		return err
	}
	if r.Before, err = g.tree(ctx, r); err != nil && ctx.Err() == nil {
		// An index git cannot read without the repository (a split index): start from none.
		beneath.RemovePath(filepath.Join(r.Data, "index"))
		r.Before, err = g.tree(ctx, r)
	}
	return err
}

// pathspecs are the work dirs as pathspecs from the top, literal, less kimi-run's own
// files and dirs inside the work tree.
func (r *repo) pathspecs() []string {
	var out []string
	for _, d := range r.Dirs {
		rel, err := filepath.Rel(r.Top, d)
		if err != nil || rel == "." {
			out = []string{":/"} // the whole work tree
			break
		}
		out = append(out, ":(top,literal)"+filepath.ToSlash(rel))
	}
	for _, e := range r.Exclude {
		if rel, err := filepath.Rel(r.Top, e); err == nil && rel != "." && within(e, r.Top) {
			out = append(out, ":(top,exclude,literal)"+filepath.ToSlash(rel))
		}
	}
	return out
}

// tree adds every file of the work dirs, untracked ones included and ignored ones left
// out, to the tracker's index and writes its tree.
func (g git) tree(ctx context.Context, r *repo) (string, error) {
	_, err := g.run(ctx, r, append([]string{"add", "--all", "--ignore-errors", "--"}, r.pathspecs()...)...)
	if err != nil && strings.Contains(err.Error(), "did not match any files") {
		// A work dir that is gone cannot be a pathspec: look at the whole work tree.
		_, err = g.run(ctx, r, "add", "--all", "--ignore-errors", "--", ":/")
	}
	// With --ignore-errors a file that cannot be read is left as the index had it and git
	// exits 1 having added the rest: the tree below is still worth having. Anything else
	// (a cancelled run, a broken repository) shows again in write-tree.
	if ctx.Err() != nil {
		return "", context.Cause(ctx)
	}
	_ = err
	out, err := g.run(ctx, r, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// gitChange is one file the diff of two trees lists.
type gitChange struct {
	status         byte // A, M, D or T
	added, removed int
	binary         bool
}

// changes writes the work dirs' tree as it is now and lists what differs from the
// snapshot's, by absolute path.
func (g git) changes(ctx context.Context, r *repo) (map[string]gitChange, error) {
	ctx, cancel := g.bound(ctx)
	defer cancel()
	if err := checkStore(r.Objects); err != nil {
		return nil, err
	}
	after, err := g.tree(ctx, r)
	if err != nil {
		return nil, err
	}
	out := map[string]gitChange{}
	if after == r.Before {
		return out, nil
	}
	args := func(format string) []string {
		return append([]string{"diff-tree", "-r", "-z", "--no-renames", format, r.Before, after, "--"}, r.pathspecs()...)
	}
	status, err := g.run(ctx, r, args("--name-status")...)
	if err != nil {
		return nil, err
	}
	fields := strings.Split(strings.TrimSuffix(string(status), "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i] == "" {
			continue
		}
		out[filepath.Join(r.Top, filepath.FromSlash(fields[i+1]))] = gitChange{status: fields[i][0]}
	}
	numstat, err := g.run(ctx, r, args("--numstat")...)
	if err != nil {
		return nil, err
	}
	for _, rec := range strings.Split(strings.TrimSuffix(string(numstat), "\x00"), "\x00") {
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) != 3 {
			continue
		}
		p := filepath.Join(r.Top, filepath.FromSlash(parts[2]))
		c := out[p]
		if parts[0] == "-" {
			c.binary = true
		} else {
			c.added, _ = strconv.Atoi(parts[0])
			c.removed, _ = strconv.Atoi(parts[1])
		}
		out[p] = c
	}
	return out, nil
}

// remove removes the run's git dir.
func (g *git) remove() {
	if g.dir != "" {
		os.RemoveAll(g.dir)
		g.dir = ""
	}
}

// copyIndex copies the repository's index src to dst. src is opened by openNoLink below
// top: a link on the way or at its name (to a file outside, planted by a command), a FIFO
// or anything else but a regular file is not copied, and git starts from no index, as it
// does when there is none.
func copyIndex(src, top, dst string) error {
	in, _, err := openNoLink(src, []string{top})
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, beneath.ErrLink) || err == nil && in == nil {
		return nil
	}
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := beneath.Open(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

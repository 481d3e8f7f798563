package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kimi-run/kimi-run/internal/launch"
)

// gitRunner runs git for the changes tracker, through the run's launcher: unconfined (it
// only reads the work tree and writes its own temp dir), with the children's environment.
type gitRunner struct {
	launch *launch.Launcher
	// off is --files-changed tools: git is never run, and no work dir is seen through it.
	off bool
}

// gitEnv keeps git from waiting on a person or taking the repository's optional locks.
var gitEnv = []string{"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"}

// run runs git args in dir with env on top of the children's environment, and returns its
// stdout; a failure says what git said on stderr.
func (g gitRunner) run(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
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
		Env: append(append([]string(nil), gitEnv...), env...), Dir: dir, Stdout: outW, Stderr: errW})
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
		return nil, ctx.Err()
	case !state.Success():
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = state.String()
		}
		return nil, fmt.Errorf("git %s: %s", args[0], firstLine(msg))
	case readErr != nil:
		return nil, readErr
	}
	return out, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// gitRepo is one repository holding work dirs, and the state of their files when the
// snapshot was taken: a tree written with a copy of the repository's index into a temp
// dir of the run's, so neither the index nor the object store of the repository changes.
type gitRepo struct {
	top     string   // the work tree's top, a real path
	index   string   // the repository's index file
	objects string   // the repository's object store
	dirs    []string // the work dirs in it, real paths
	tmp     string   // the run's copy of the index and the objects it writes
	before  string   // the tree of the work dirs when the snapshot was taken
}

// findRepos finds the repository of each dir. Dirs in no repository (or where git is
// missing or fails) are returned as uncovered.
func findRepos(ctx context.Context, g gitRunner, dirs []string) (repos []*gitRepo, uncovered []string) {
	if g.off {
		return nil, dirs
	}
	byTop := map[string]*gitRepo{}
	for _, d := range dirs {
		out, err := g.run(ctx, d, nil, "rev-parse", "--show-toplevel", "--git-path", "index", "--git-path", "objects")
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if err != nil || len(lines) != 3 || lines[0] == "" {
			uncovered = append(uncovered, d)
			continue
		}
		top := realDir(lines[0])
		r := byTop[top]
		if r == nil {
			abs := func(p string) string {
				if filepath.IsAbs(p) {
					return p
				}
				return filepath.Join(d, p)
			}
			r = &gitRepo{top: top, index: abs(lines[1]), objects: abs(lines[2])}
			byTop[top] = r
			repos = append(repos, r)
		}
		r.dirs = append(r.dirs, d)
	}
	return repos, uncovered
}

// pathspecs are the work dirs as pathspecs from the top, literal, less the run's own temp
// dir should it be inside (a TMPDIR in the work tree).
func (r *gitRepo) pathspecs() []string {
	var out []string
	for _, d := range r.dirs {
		rel, err := filepath.Rel(r.top, d)
		if err != nil || rel == "." {
			out = []string{":/"} // the whole work tree
			break
		}
		out = append(out, ":(top,literal)"+filepath.ToSlash(rel))
	}
	if tmp := realDir(r.tmp); r.tmp != "" && within(tmp, r.top) {
		rel, _ := filepath.Rel(r.top, tmp)
		out = append(out, ":(top,exclude,literal)"+filepath.ToSlash(rel))
	}
	return out
}

// env points git at the run's copy of the index and its own object directory, with the
// repository's objects readable as alternates.
func (r *gitRepo) env() []string {
	return []string{
		"GIT_INDEX_FILE=" + filepath.Join(r.tmp, "index"),
		"GIT_OBJECT_DIRECTORY=" + filepath.Join(r.tmp, "objects"),
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + r.objects,
	}
}

// snapshot copies the index (with its stat cache, so that only files that changed since
// it was written are read) and writes the tree of the work dirs as they are now.
func (r *gitRepo) snapshot(ctx context.Context, g gitRunner) error {
	tmp, err := os.MkdirTemp("", "kimi-run-changes-")
	if err != nil {
		return err
	}
	r.tmp = tmp
	if err := os.Mkdir(filepath.Join(tmp, "objects"), 0o700); err != nil {
		return err
	}
	if err := copyFile(r.index, filepath.Join(tmp, "index")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	r.before, err = r.tree(ctx, g)
	return err
}

// tree adds every file of the work dirs, untracked ones included and ignored ones left
// out, to the run's index and writes its tree.
func (r *gitRepo) tree(ctx context.Context, g gitRunner) (string, error) {
	_, err := g.run(ctx, r.top, r.env(), append([]string{"add", "--all", "--ignore-errors", "--"}, r.pathspecs()...)...)
	if err != nil && strings.Contains(err.Error(), "did not match any files") {
		// A work dir that is gone cannot be a pathspec: look at the whole work tree.
		_, err = g.run(ctx, r.top, r.env(), "add", "--all", "--ignore-errors", "--", ":/")
	}
	// With --ignore-errors a file that cannot be read is left as the index had it and git
	// exits 1 having added the rest: the tree below is still worth having. Anything else
	// (a cancelled run, a broken repository) shows again in write-tree.
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	_ = err
	out, err := g.run(ctx, r.top, r.env(), "write-tree")
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
func (r *gitRepo) changes(ctx context.Context, g gitRunner) (map[string]gitChange, error) {
	after, err := r.tree(ctx, g)
	if err != nil {
		return nil, err
	}
	out := map[string]gitChange{}
	if after == r.before {
		return out, nil
	}
	args := func(format string) []string {
		return append([]string{"diff-tree", "-r", "-z", "--no-renames", format, r.before, after, "--"}, r.pathspecs()...)
	}
	status, err := g.run(ctx, r.top, r.env(), args("--name-status")...)
	if err != nil {
		return nil, err
	}
	fields := strings.Split(strings.TrimSuffix(string(status), "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i] == "" {
			continue
		}
		out[filepath.Join(r.top, filepath.FromSlash(fields[i+1]))] = gitChange{status: fields[i][0]}
	}
	numstat, err := g.run(ctx, r.top, r.env(), args("--numstat")...)
	if err != nil {
		return nil, err
	}
	for _, rec := range strings.Split(strings.TrimSuffix(string(numstat), "\x00"), "\x00") {
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) != 3 {
			continue
		}
		p := filepath.Join(r.top, filepath.FromSlash(parts[2]))
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

// close removes the run's temp dir.
func (r *gitRepo) close() {
	if r.tmp != "" {
		os.RemoveAll(r.tmp)
	}
}

// copyFile copies src to dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// realDir is path with its symbolic links resolved, or path when that fails.
func realDir(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return filepath.Clean(path)
}

package search

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kimi-run/kimi-run/internal/launch"
)

// LookRipgrep returns the rg executable found on path (a PATH value), or "" when there is
// none. Relative entries, and entries that lead into one of avoid (the directories a run's
// commands may write: the work dir, --add-dir dirs), are skipped, however they are spelt:
// an rg planted there by one run must not be what the next run's Grep starts.
func LookRipgrep(path string, avoid ...string) string {
	var real []string
	for _, a := range avoid {
		if r, err := filepath.EvalSymlinks(a); err == nil {
			real = append(real, r)
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		exe := filepath.Join(dir, "rg")
		if _, err := os.Stat(exe); err != nil {
			// Most PATH entries have no rg: one call says so, where resolving the path
			// takes one per component (a run does this before its first request).
			continue
		}
		resolved, err := filepath.EvalSymlinks(exe)
		if err != nil || inAny(resolved, real) || inAny(dir, real) {
			continue
		}
		if info, err := os.Stat(resolved); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return exe
		}
	}
	return ""
}

// inAny reports whether p is one of dirs or below one.
func inAny(p string, dirs []string) bool {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// rgCommonArgs make rg walk the tree as the pure-Go engines do: hidden files included,
// .gitignore honoured even outside a git repository, no user config or global excludes,
// VCS directories skipped.
var rgCommonArgs = []string{
	"--no-config", "--hidden", "--no-require-git", "--no-ignore-global",
	"--glob", "!.git", "--glob", "!.hg", "--glob", "!.svn",
}

// ripgrepExitError reports that rg exited with status 2: a bad argument, or some files
// that could not be read while others were searched.
type ripgrepExitError struct {
	stderr string
}

func (e *ripgrepExitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = "rg exited with status 2"
	}
	return msg
}

// runRipgrep runs rg in dir through the run's launcher (confined under the sandbox, with
// the run's environment) and hands its stdout to consume. Exit status 1 (nothing found) is
// not an error. When consume fails or ctx ends, rg is killed and that error returned.
func runRipgrep(ctx context.Context, opts Options, dir string, args []string, consume func(*bufio.Reader) error) error {
	outR, outW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("rg stdout: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return fmt.Errorf("rg stderr: %w", err)
	}
	p, err := opts.Launcher.Start(launch.Spec{Path: opts.Ripgrep, Args: append([]string{opts.Ripgrep}, args...),
		Dir: dir, Stdout: outW, Stderr: errW, Confine: true})
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return fmt.Errorf("start rg: %w", err)
	}
	stderr := &launch.Head{Max: 4 << 10}
	stderrDone := make(chan struct{})
	go func() {
		_, _ = io.Copy(stderr, errR)
		close(stderrDone)
	}()
	stop := context.AfterFunc(ctx, func() { _ = p.Signal(true) })
	consumeErr := consume(bufio.NewReaderSize(outR, 64<<10))
	if consumeErr != nil {
		_ = p.Signal(true)
	}
	_, _ = io.Copy(io.Discard, outR)
	state := p.Wait()
	stop()
	<-stderrDone
	outR.Close()
	errR.Close()
	switch {
	case consumeErr != nil:
		return consumeErr
	case ctx.Err() != nil:
		return ctx.Err()
	case state.Success(), state.ExitCode() == 1:
		return nil
	}
	return &ripgrepExitError{stderr: stderr.String()}
}

package search

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
)

var lookRipgrep = sync.OnceValue(func() string {
	p, err := exec.LookPath("rg")
	if err != nil {
		return ""
	}
	return p
})

// LookRipgrep returns the path of the rg executable found on PATH, or "" when there is
// none. The lookup happens once per process.
func LookRipgrep() string { return lookRipgrep() }

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

// runRipgrep runs rg in dir and hands its stdout to consume. Exit status 1 (nothing
// found) is not an error. When consume fails, rg is stopped and that error returned.
func runRipgrep(ctx context.Context, rg, dir string, args []string, consume func(*bufio.Reader) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, rg, args...)
	cmd.Dir = dir
	stderr := &headBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("rg stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start rg: %w", err)
	}
	consumeErr := consume(bufio.NewReaderSize(out, 64<<10))
	if consumeErr != nil {
		cancel()
	}
	_, _ = io.Copy(io.Discard, out)
	waitErr := cmd.Wait()
	switch {
	case consumeErr != nil:
		return consumeErr
	case ctx.Err() != nil:
		return ctx.Err()
	case waitErr == nil:
		return nil
	}
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) {
		if exit.ExitCode() == 1 {
			return nil
		}
		return &ripgrepExitError{stderr: stderr.String()}
	}
	return fmt.Errorf("run rg: %w", waitErr)
}

// headBuffer keeps the first max bytes written to it and drops the rest.
type headBuffer struct {
	buf bytes.Buffer
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - h.buf.Len(); room > 0 {
		h.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (h *headBuffer) String() string { return h.buf.String() }

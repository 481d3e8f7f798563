package hooks

import (
	"context"
	"errors"
	"time"

	"github.com/kimi-run/kimi-run/internal/launch"
)

// waitDelay bounds the wait for a command's output after it exited and its process group
// was killed: only a process that left the group (setsid) can still hold the pipes, and it
// must not hold the run.
const waitDelay = 2 * time.Second

// execute runs command through the shell in dir, started by l, with stdin as its input,
// in a process group of its own that is killed when timeout passes, when ctx ends, and
// when the command itself exits: a hook's background processes never outlive it.
func execute(ctx context.Context, l *launch.Launcher, command, dir string, stdin []byte, timeout time.Duration) result {
	tctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout)
	defer cancel()
	prog, args := shellCommand(command)
	// The output goes through pipes of our own: the wait ends when the command exits, not
	// when the last process holding the pipes does.
	stdout, stderr := &launch.Head{Max: outputCap}, &launch.Head{Max: outputCap}
	outs, err := launch.NewCapture(stdout, stderr)
	if err != nil {
		return result{exitCode: -1, startErr: err}
	}
	in, err := launch.Feed(stdin)
	if err != nil {
		outs.Abandon()
		return result{exitCode: -1, startErr: err}
	}
	began := time.Now()
	// A group of its own, confined like a Shell command under the sandbox.
	p, err := l.Start(launch.Spec{Path: prog, Args: append([]string{prog}, args...), Dir: dir,
		Stdin: in, Stdout: outs.Stdout(), Stderr: outs.Stderr(), Confine: true})
	in.Close()
	outs.Started()
	if err != nil {
		outs.Abandon()
		return result{exitCode: -1, startErr: err, duration: time.Since(began)}
	}
	select {
	case <-p.Done():
	case <-tctx.Done():
	}
	_ = p.Signal(true) // its background processes die with it
	state := p.Wait()
	outs.Wait(waitDelay)
	r := result{duration: time.Since(began), stdout: stdout.String(), stderr: stderr.String()}
	r.exitCode = state.ExitCode()
	if errors.Is(context.Cause(tctx), errTimeout) {
		r.timedOut, r.exitCode = true, -1
	} else if ctx.Err() != nil {
		r.exitCode = -1
	}
	return r
}

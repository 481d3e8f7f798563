package hooks

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"sync"
	"time"
)

// waitDelay bounds the wait for a command's output pipes after it exited or was killed: a
// background process it left behind must not hold the run.
const waitDelay = 2 * time.Second

// execute runs command through the shell in dir with env, stdin as its input, in a process
// group of its own that is killed when timeout passes or ctx ends.
func execute(ctx context.Context, command, dir string, env []string, stdin []byte, timeout time.Duration) result {
	tctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout)
	defer cancel()
	prog, args := shellCommand(command)
	cmd := exec.CommandContext(tctx, prog, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr cappedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	isolate(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = waitDelay

	began := time.Now()
	if err := cmd.Start(); err != nil {
		return result{exitCode: -1, startErr: err, duration: time.Since(began)}
	}
	_ = cmd.Wait() // the exit code and the contexts say all there is
	r := result{duration: time.Since(began), stdout: stdout.String(), stderr: stderr.String()}
	r.exitCode = cmd.ProcessState.ExitCode()
	if errors.Is(context.Cause(tctx), errTimeout) {
		r.timedOut, r.exitCode = true, -1
	} else if ctx.Err() != nil {
		r.exitCode = -1
	}
	return r
}

// cappedBuffer keeps the first outputCap bytes written to it and drops the rest.
type cappedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := outputCap - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

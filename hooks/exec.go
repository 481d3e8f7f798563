package hooks

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
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
	outs, err := startReaders(stdout, stderr)
	if err != nil {
		return result{exitCode: -1, startErr: err}
	}
	in, err := feed(stdin)
	if err != nil {
		outs.abandon()
		return result{exitCode: -1, startErr: err}
	}
	began := time.Now()
	// A group of its own, confined like a Shell command under the sandbox.
	p, err := l.Start(launch.Spec{Path: prog, Args: append([]string{prog}, args...), Dir: dir,
		Stdin: in, Stdout: outs.write[0], Stderr: outs.write[1], Confine: true})
	in.Close()
	outs.started()
	if err != nil {
		outs.abandon()
		return result{exitCode: -1, startErr: err, duration: time.Since(began)}
	}
	select {
	case <-p.Done():
	case <-tctx.Done():
	}
	_ = p.Signal(true) // its background processes die with it
	state := p.Wait()
	outs.wait(waitDelay)
	r := result{duration: time.Since(began), stdout: stdout.String(), stderr: stderr.String()}
	r.exitCode = state.ExitCode()
	if errors.Is(context.Cause(tctx), errTimeout) {
		r.timedOut, r.exitCode = true, -1
	} else if ctx.Err() != nil {
		r.exitCode = -1
	}
	return r
}

// feed returns the read end of a pipe that delivers b and then EOF; the writing is done
// in the background, and ends when the reader goes.
func feed(b []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	go func() {
		_, _ = w.Write(b)
		w.Close()
	}()
	return r, nil
}

// readers copies a command's stdout and stderr pipes into buffers.
type readers struct {
	read, write []*os.File
	done        sync.WaitGroup
}

// startReaders makes a pipe for stdout and one for stderr, read into out and errOut.
func startReaders(out, errOut io.Writer) (*readers, error) {
	r := &readers{}
	for _, w := range []io.Writer{out, errOut} {
		pr, pw, err := os.Pipe()
		if err != nil {
			r.abandon()
			return nil, err
		}
		r.read, r.write = append(r.read, pr), append(r.write, pw)
		r.done.Go(func() { _, _ = io.Copy(w, pr) })
	}
	return r, nil
}

// started closes this process's copies of the write ends, once the command has its own.
func (r *readers) started() {
	for _, w := range r.write {
		w.Close()
	}
}

// wait waits up to d for the output to end, then stops reading.
func (r *readers) wait(d time.Duration) {
	done := make(chan struct{})
	go func() { r.done.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
	r.abandon()
	<-done
}

// abandon closes every pipe end, which ends the copying.
func (r *readers) abandon() {
	for _, f := range append(r.read, r.write...) {
		f.Close()
	}
}

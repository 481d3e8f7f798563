package run

import (
	"context"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
)

// stopGrace is how long a run has to end by itself once its context has ended (the first
// signal, --timeout): long enough for the usual ending (Shell groups stopped, SessionEnd
// hooks, the session synced, the result). Past it the stopper writes the result and ends
// the process, whatever is still running: a goroutine stuck in a system call, a hook
// that ignores its deadline.
const stopGrace = 10 * time.Second

// lastWriteWait bounds the wait for the result to reach stdout when the stopper ends the
// process: a reader that stopped reading must not hold the exit.
const lastWriteWait = 2 * time.Second

// stacksEnv, set to 1, makes SIGQUIT write every goroutine's stack to stderr before the run
// ends as it does for any signal: for debugging a run that seems stuck.
const stacksEnv = "KIMI_RUN_QUIT_STACKS"

// stopper holds a run to its deadline and owns the process's last word. It turns the first
// signal and --timeout into the cause of the run's context; a second signal, or a run still
// going stopGrace after its context ended, makes it write the result itself (if the run
// has not) and end the process. The result is written once, by whichever comes first,
// and nothing is written after it.
type stopper struct {
	// exit ends the process; nil (a run inside tests) leaves ending it to the run.
	exit           func(int)
	stdout, stderr *gate
	// mcpKill and shellKill run before the stopper ends the process: the MCP servers and
	// the Shell commands' process groups are killed first.
	mcpKill, shellKill exitHook
	getenv             func(string) string
	// grace and writeWait are stopGrace and lastWriteWait (tests shorten them).
	grace, writeWait time.Duration

	// last is held while the result is written; written says it was, with code.
	last    sync.Mutex
	written bool
	code    ExitCode
	// pending is the code of a result being written by the run (-1: none), for an exit
	// that cannot wait for the write to finish.
	pending atomic.Int64
	// render turns a verdict into the result as the run's output writes it, for stdout
	// and stderr; it gets the run's details once start has built its sink.
	render atomic.Pointer[func(verdict) (stdout, stderr []byte)]
	done   chan struct{}
}

// newStopper wraps the process's streams in the stopper's gates and renders a result from
// the flags alone until the run's sink exists.
func newStopper(f *config.Flags, sio IO) (*stopper, IO) {
	s := &stopper{exit: sio.Exit, getenv: sio.Getenv, done: make(chan struct{}), grace: stopGrace, writeWait: lastWriteWait}
	s.pending.Store(-1)
	s.stdout, s.stderr = &gate{w: sio.Stdout}, &gate{w: sio.Stderr}
	sio.Stdout, sio.Stderr = s.stdout, s.stderr
	early := func(v verdict) ([]byte, []byte) {
		return renderResult(f, config.OutputOf(f), nil, v, event.Result{})
	}
	s.render.Store(&early)
	return s, sio
}

// arm starts the run's clock: the signals, --timeout (0: none) and the watch that ends a
// run that overstays. The returned context ends with the first signal or the deadline,
// its cause saying which.
func (s *stopper) arm(signals <-chan os.Signal, timeout time.Duration) context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	runCtx, cancelTimeout := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		runCtx, cancelTimeout = context.WithTimeoutCause(ctx, timeout, errTimeout)
	}
	go func() {
		defer cancel(nil)
		defer cancelTimeout()
		select {
		case sig := <-signals:
			s.dumpStacks(sig)
			cancel(&signalError{sig: sig})
		case <-runCtx.Done():
		case <-s.done:
			return
		}
		grace := time.NewTimer(s.grace)
		defer grace.Stop()
		select {
		case sig := <-signals:
			// The second signal: now, whatever is running.
			s.dumpStacks(sig)
		case <-grace.C:
		case <-s.done:
			return
		}
		s.end(judge(outcome{}, nil, context.Cause(runCtx)))
	}()
	return runCtx
}

// close stops the watch: the run has ended by itself.
func (s *stopper) close() { close(s.done) }

// dumpStacks writes every goroutine's stack to stderr for SIGQUIT when stacksEnv asks.
func (s *stopper) dumpStacks(sig os.Signal) {
	if signalName(sig) != "SIGQUIT" || s.getenv == nil || s.getenv(stacksEnv) != "1" {
		return
	}
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	_, _ = s.stderr.Write(buf)
}

// end writes the result for v unless the run has written one, and ends the process with
// the code of the result that was written. Without exit it does nothing: only a process
// may be ended.
func (s *stopper) end(v verdict) {
	if s.exit == nil {
		return
	}
	s.shellKill.run()
	s.mcpKill.run()
	wrote := make(chan ExitCode, 1)
	go func() { wrote <- s.lastWord(v) }()
	code := v.code
	select {
	case code = <-wrote:
	case <-time.After(s.writeWait):
		// stdout does not take the line (nobody reads it): the exit wins.
		if p := s.pending.Load(); p >= 0 {
			code = ExitCode(p)
		}
	}
	s.exit(int(code))
}

// lastWord writes the result for v when none has been written, seals both streams, and
// returns the code of the result that was written.
func (s *stopper) lastWord(v verdict) ExitCode {
	s.last.Lock()
	defer s.last.Unlock()
	if s.written {
		return s.code
	}
	out, errOut := (*s.render.Load())(v)
	// stdout first: the result is what a program waits for; stderr may be the stream
	// that nobody reads.
	s.stdout.final(out)
	s.stderr.final(errOut)
	s.written, s.code = true, v.code
	return v.code
}

// result writes the run's own result through emit, unless the stopper has written one
// (then the process is ending): the result is written once.
func (s *stopper) result(code ExitCode, emit func()) {
	s.pending.Store(int64(code))
	s.last.Lock()
	defer s.last.Unlock()
	if s.written {
		return
	}
	emit()
	s.written, s.code = true, code
}

// gate is one of the process's streams: writes pass one at a time until the stopper's last
// word, after which they are dropped.
type gate struct {
	w      io.Writer
	mu     sync.Mutex
	sealed bool
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sealed {
		return len(p), nil
	}
	return g.w.Write(p)
}

// final writes p as the stream's last bytes.
func (g *gate) final(p []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sealed {
		return
	}
	g.sealed = true
	if len(p) > 0 {
		_, _ = g.w.Write(p)
	}
}

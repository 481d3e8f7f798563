package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Set is the servers of one run.
type Set struct {
	opts  Options
	conns []*conn

	mu     sync.Mutex
	procs  []*process // every process started, for Kill
	killed bool       // Kill was called: exits are expected, and a late start is killed too
	// named are the tools Tools named last; closing silences the servers' stderr;
	// interrupted says ctx ended during Start.
	named       []*Tool
	closing     atomic.Bool
	interrupted bool
}

// Status is how one server's start went.
type Status struct {
	Name      string
	Transport Transport
	// Err is why the server is not available; nil when it started.
	Err error
	// Tools is how many tools it offers.
	Tools int
	// Skipped counts the lines a stdio server wrote on stdout that are not JSON (skipped);
	// FirstSkipped is the first of them, shortened.
	Skipped      int
	FirstSkipped string
}

// NewSet returns a Set with no servers yet; Start starts them. The two steps let a caller
// Kill the Set while Start runs. The servers' stderr lines reach opts.Stderr one at a time,
// until Close begins.
func NewSet(opts Options) *Set {
	s := &Set{opts: opts}
	if stderr := opts.Stderr; stderr != nil {
		var mu sync.Mutex
		s.opts.Stderr = func(server, line string) {
			mu.Lock()
			defer mu.Unlock()
			if !s.closing.Load() {
				stderr(server, line)
			}
		}
	}
	return s
}

// Start connects to every server in parallel and lists their tools; call it once. It
// returns when each has started, failed or run out of its start-up time, so it takes about
// as long as the slowest server. Failures are in Statuses; Start itself does not fail.
func (s *Set) Start(ctx context.Context, servers []Server) {
	s.conns = make([]*conn, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		c := &conn{server: srv, set: s}
		s.conns[i] = c
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.err = c.start(ctx)
		}()
	}
	wg.Wait()
	s.interrupted = ctx.Err() != nil
}

// Statuses reports each server, in the order given to Start.
func (s *Set) Statuses() []Status {
	out := make([]Status, len(s.conns))
	for i, c := range s.conns {
		out[i] = Status{Name: c.server.Name, Transport: c.server.Transport, Err: c.err, Tools: len(c.tools)}
		out[i].Skipped, out[i].FirstSkipped = c.stdout.report()
	}
	return out
}

// Close stops every server, in parallel, and returns when all are gone (about a second at
// most). Crashes are no longer reported once Close has begun.
func (s *Set) Close() {
	s.closing.Store(true)
	var wg sync.WaitGroup
	for _, c := range s.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.close(true)
		}()
	}
	wg.Wait()
}

// Kill sends SIGKILL to the process group of every stdio server started so far, at once and
// without waiting: for a process that is about to exit without running Close. It may be
// called while Start runs.
func (s *Set) Kill() {
	s.mu.Lock()
	procs := append([]*process(nil), s.procs...)
	s.killed = true
	s.mu.Unlock()
	for _, p := range procs {
		p.kill()
	}
}

func (s *Set) track(p *process) {
	s.mu.Lock()
	s.procs = append(s.procs, p)
	killed := s.killed
	s.mu.Unlock()
	if killed {
		p.kill()
	}
}

func (s *Set) wasKilled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.killed
}

// conn is one server: its session, its tools and, for stdio, its process.
type conn struct {
	server  Server
	set     *Set
	session *sdk.ClientSession
	tools   []*sdk.Tool
	err     error
	proc    *process // nil for HTTP servers
	stdout  *jsonLines
	endLife context.CancelFunc

	live     atomic.Bool // started; a later exit is a crash
	closing  atomic.Bool // Close or Kill has begun; an exit is expected
	reported sync.Once
}

// start connects and lists the tools within the start-up timeout.
func (c *conn) start(ctx context.Context) error {
	timeout := c.set.opts.startupTimeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var transport sdk.Transport
	switch c.server.Transport {
	case Stdio:
		p, err := startProcess(c.server, c.set.opts.Stderr, c.set.opts.Launcher)
		if err != nil {
			return err
		}
		c.proc = p
		c.set.track(p)
		go c.watch()
		// A process that dies during the handshake fails it at once rather than at the timeout.
		go func() {
			select {
			case <-p.exited:
				cancel()
			case <-ctx.Done():
			}
		}()
		c.stdout = newJSONLines(p.stdout)
		transport = &sdk.IOTransport{Reader: c.stdout, Writer: p.stdin}
	case HTTP, SSE:
		transport = httpTransport(c.server, c.set.opts.HTTPClient)
	default:
		return fmt.Errorf("unknown transport %q", c.server.Transport)
	}

	// Some transports tie the connection to the context Connect is given (the SSE stream is
	// a request made with it); that context has to outlive start-up, so it is cut loose from
	// the start-up timeout and ended by close instead, or by the timeout while starting.
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	c.endLife = endLife
	detach := context.AfterFunc(ctx, endLife)
	transport = &lifeTransport{Transport: transport, life: life}

	client := sdk.NewClient(&sdk.Implementation{Name: "kimi-run", Version: c.set.opts.Version}, nil)
	for _, dir := range c.set.opts.Roots {
		// Roots are deprecated from protocol 2026-07-28 on but still served for at least a
		// year; servers of the current protocol read the work dir from them.
		//lint:ignore SA1019 kept through the deprecation window (see above)
		client.AddRoots(&sdk.Root{URI: fileURI(dir), Name: filepath.Base(dir)})
	}
	session, err := client.Connect(ctx, transport, nil)
	if err == nil {
		c.session = session
		err = c.listTools(ctx)
	}
	if err == nil && !detach() {
		err = context.Cause(ctx) // start-up ran out just as it finished
	}
	if err != nil {
		err = c.startError(ctx, err, timeout)
		c.close(false)
		return err
	}
	c.live.Store(true)
	if c.proc != nil && c.proc.hasExited() {
		c.crashed()
	}
	return nil
}

func (c *conn) listTools(ctx context.Context) error {
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		c.tools = append(c.tools, t)
	}
	return nil
}

// startError explains a failed start: an exit, the timeout, or the error itself, with the
// last lines the server wrote on stderr.
func (c *conn) startError(ctx context.Context, err error, timeout time.Duration) error {
	timedOut := errors.Is(context.Cause(ctx), context.DeadlineExceeded)
	switch {
	case c.proc != nil && !timedOut && c.proc.collect(ctx) && c.proc.exitedOnItsOwn():
		// The handshake broke because the server exited; say that, not "EOF". (A server
		// still running is killed by collect: the start failed, it is closed anyway.)
		err = fmt.Errorf("exited during start-up (%v)", c.proc.exitErr())
	case timedOut:
		err = fmt.Errorf("did not complete the MCP handshake within %s: %w", timeout, err)
	}
	if c.proc != nil {
		c.proc.drainStderr(stderrQuote)
		if tail := c.proc.tail.String(); tail != "" {
			err = fmt.Errorf("%w; stderr: %s", err, tail)
		}
	}
	return scrubURL(err, c.server.URL)
}

// watch waits for a stdio server's process to end and reports an unexpected exit.
func (c *conn) watch() {
	<-c.proc.exited
	if c.live.Load() {
		c.crashed()
	}
}

func (c *conn) crashed() {
	if c.closing.Load() || c.set.wasKilled() || c.set.opts.Exited == nil {
		return
	}
	c.reported.Do(func() {
		c.proc.drainStderr(stderrQuote)
		err := c.proc.exitErr()
		if tail := c.proc.tail.String(); tail != "" {
			err = fmt.Errorf("%w; stderr: %s", err, tail)
		}
		c.set.opts.Exited(c.server.Name, err)
	})
}

// linkLost reports, once, an HTTP server whose connection broke during a call, as a stdio
// server's exit is reported, and closes its session: its tools fail from then on.
func (c *conn) linkLost(err error) {
	if c.closing.Load() || c.set.wasKilled() {
		return
	}
	go c.session.Close()
	if c.set.opts.Exited == nil {
		return
	}
	c.reported.Do(func() { c.set.opts.Exited(c.server.Name, err) })
}

// close ends the session and, for stdio, the process group: gracefully, with time to go
// after stdin is closed, or at once for a server that failed to start.
func (c *conn) close(graceful bool) {
	c.closing.Store(true)
	closed := make(chan struct{})
	go func() {
		if c.session != nil {
			c.session.Close()
		}
		close(closed)
	}()
	if c.proc != nil {
		c.proc.stop(graceful)
	}
	select {
	case <-closed:
	case <-time.After(httpCloseWait):
	}
	if c.endLife != nil {
		c.endLife()
	}
}

// lifeTransport connects its transport with a context of its own rather than Connect's.
type lifeTransport struct {
	sdk.Transport
	life context.Context
}

func (t *lifeTransport) Connect(context.Context) (sdk.Connection, error) {
	return t.Transport.Connect(t.life)
}

// fileURI is the file:// URI of an absolute directory.
func fileURI(dir string) string {
	p := filepath.ToSlash(dir)
	if len(p) > 0 && p[0] != '/' {
		p = "/" + p // a Windows drive letter
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

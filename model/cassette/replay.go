package cassette

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Replayer is an http.RoundTripper that answers every request from a cassette, never
// touching the network.
type Replayer struct {
	c *Cassette
	// Lenient answers requests in recorded order without comparing them.
	Lenient bool
	// Read reads the requests' bodies in the protocol of the cassette's provider
	// (model/protocols); nil reads chat completions.
	Read Reader
	// Exact compares the text of tool results too; by default it is left out, since a
	// command's output (timings, dates) is the world's and differs from run to run.
	Exact bool
	// Speed divides every recorded wait (1: as recorded, 10: ten times faster, 0: no
	// waits). A client that gave up during the recording is still waited for.
	Speed float64
	// WorkDir is the replay's work directory, put in place of the recorded one when
	// requests are compared.
	WorkDir string
	// Secrets are scrubbed from requests before they are compared, as they were when
	// the cassette was recorded.
	Secrets []string
	// OnDivergence, when set, is called with the divergence before RoundTrip returns it,
	// so the run can be stopped rather than retried. If it cancels the request's context,
	// RoundTrip returns the context's error instead of the divergence.
	OnDivergence func(*Divergence)

	mu    sync.Mutex
	used  []bool
	calls int
}

// NewReplayer plays c back.
func NewReplayer(c *Cassette) *Replayer {
	return &Replayer{c: c, Speed: 1, used: make([]bool, len(c.Exchanges))}
}

// Divergence is a request the cassette cannot answer: it differs from the recording, or
// the recording has no more exchanges.
type Divergence struct {
	// Call is the replay's model call (1-based, in the order requests were made).
	Call int
	// Recorded is the cassette's exchange the request was compared with; 0 when none
	// was left.
	Recorded int
	// Detail says what differed.
	Detail string
	// ToolOutput: what differed is the text of a tool result (only an exact replay
	// compares it).
	ToolOutput bool
}

func (d *Divergence) Error() string {
	if d.Recorded == 0 {
		return fmt.Sprintf("replay: model call %d: %s", d.Call, d.Detail)
	}
	return fmt.Sprintf("replay: model call %d differs from recorded call %d: %s", d.Call, d.Recorded, d.Detail)
}

// Unused returns how many recorded exchanges were never played.
func (p *Replayer) Unused() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, u := range p.used {
		if !u {
			n++
		}
	}
	return n
}

// Len returns the number of recorded exchanges.
func (p *Replayer) Len() int { return len(p.c.Exchanges) }

// RoundTrip implements http.RoundTripper.
func (p *Replayer) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read request body: %w", err)
		}
	}
	x, div := p.pick(body)
	if div != nil {
		if p.OnDivergence != nil {
			p.OnDivergence(div)
		}
		if err := req.Context().Err(); err != nil {
			// OnDivergence stopped the run: answer as a cancelled request, which the
			// client does not retry; the run's context carries the divergence.
			return nil, err
		}
		return nil, div
	}
	ctx := req.Context()
	start := time.Now()
	if x.Response == nil {
		if x.End.Kind == EndCancelled {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		if err := p.sleepUntil(ctx, start, x.End.AtMS); err != nil {
			return nil, err
		}
		return nil, endError(x.End)
	}
	if err := p.sleepUntil(ctx, start, x.Response.AtMS); err != nil {
		return nil, err
	}
	resp := &http.Response{
		Status:        strconv.Itoa(x.Response.Status) + " " + http.StatusText(x.Response.Status),
		StatusCode:    x.Response.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{},
		ContentLength: -1,
		Request:       req,
	}
	for k, v := range x.Response.Header {
		resp.Header.Set(k, v)
	}
	resp.Body = &player{p: p, x: x, ctx: ctx, start: start}
	return resp, nil
}

// pick finds the exchange that answers a request: in strict mode the earliest unplayed
// one whose request matches (concurrent calls, such as parallel subagents, may come in
// another order than recorded), in lenient mode simply the earliest unplayed one.
func (p *Replayer) pick(body []byte) (*Exchange, *Divergence) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	call := p.calls
	first := -1
	for i := range p.c.Exchanges {
		if !p.used[i] {
			first = i
			break
		}
	}
	if first < 0 {
		return nil, &Divergence{Call: call, Detail: fmt.Sprintf("the cassette holds %d model calls and all of them were played; the run asked for more", len(p.c.Exchanges))}
	}
	if p.Lenient {
		p.used[first] = true
		return &p.c.Exchanges[first], nil
	}
	read := p.Read
	if read == nil {
		read = ReadChat
	}
	live := newShape(read, body, p.WorkDir, newScrubber(p.Secrets))
	var firstDiff difference
	for i := first; i < len(p.c.Exchanges); i++ {
		if p.used[i] {
			continue
		}
		x := &p.c.Exchanges[i]
		diff := newShape(read, x.Request.Body, p.c.Header.WorkDir, scrubber{}).diff(live, p.Exact)
		if diff.detail == "" {
			p.used[i] = true
			return x, nil
		}
		if i == first {
			firstDiff = diff
		}
	}
	return nil, &Divergence{Call: call, Recorded: p.c.Exchanges[first].Call, Detail: firstDiff.detail, ToolOutput: firstDiff.toolOutput}
}

// sleepUntil waits until atMS (scaled by Speed) after start, or until ctx is done.
func (p *Replayer) sleepUntil(ctx context.Context, start time.Time, atMS int64) error {
	if p.Speed <= 0 || atMS <= 0 {
		return ctx.Err()
	}
	d := time.Duration(float64(atMS)*float64(time.Millisecond)/p.Speed) - time.Since(start)
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// endError is the error a recorded failure replays as.
func endError(e End) error {
	switch e.Error {
	case io.ErrUnexpectedEOF.Error():
		return io.ErrUnexpectedEOF
	case "":
		return errors.New("recorded transport error")
	}
	return errors.New(e.Error)
}

// player is a response body played from a recording, read by read.
type player struct {
	p     *Replayer
	x     *Exchange
	ctx   context.Context
	start time.Time
	next  int    // the next chunk
	rest  []byte // what is left of the current chunk
}

func (b *player) Read(buf []byte) (int, error) {
	if len(b.rest) == 0 {
		if b.next >= len(b.x.Chunks) {
			return 0, b.end()
		}
		c := b.x.Chunks[b.next]
		if err := b.p.sleepUntil(b.ctx, b.start, c.AtMS); err != nil {
			return 0, err
		}
		b.next++
		b.rest = c.bytes()
	}
	n := copy(buf, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

// end replays how the body ended.
func (b *player) end() error {
	e := b.x.End
	switch e.Kind {
	case EndCancelled:
		<-b.ctx.Done()
		return b.ctx.Err()
	case EndError:
		if err := b.p.sleepUntil(b.ctx, b.start, e.AtMS); err != nil {
			return err
		}
		return endError(e)
	}
	return io.EOF
}

func (b *player) Close() error { return nil }

// Timer waits out retry delays at the replay's speed; it satisfies retry-go's Timer.
type Timer struct{ Speed float64 }

// After returns a channel that fires after d divided by the speed (at once at speed 0).
func (t Timer) After(d time.Duration) <-chan time.Time {
	if t.Speed <= 0 {
		c := make(chan time.Time, 1)
		c <- time.Now()
		return c
	}
	return time.After(time.Duration(float64(d) / t.Speed))
}

package model

import (
	"context"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// Predial is a connection to the model's endpoint opened while the run finishes setting
// itself up, so that the name look-up and the TCP handshake (tens of milliseconds across
// the internet) overlap that work instead of following it. The first dial the client's
// transport makes to the same address takes it; any other dial dials as usual. When the
// early dial failed before the request came, the request dials again; when the request
// waited for it, it gets the early dial's error, as its own dial would have, and never
// waits for two dials (an endpoint that drops packets costs one dial timeout, not two). A
// nil *Predial dials as usual.
type Predial struct {
	addr string
	done chan struct{} // closed when the early dial ended (finish)

	mu      sync.Mutex
	conn    net.Conn
	err     error
	ended   bool // the early dial ended
	waiting bool // a request's dial waits for it

	taken atomic.Bool // a dial or Close has had the connection
}

// StartPredial starts dialling the endpoint at baseURL in the background. It returns nil,
// and dials nothing, when requests to it would go through a proxy (the transport dials
// the proxy) or the URL names no host.
func StartPredial(ctx context.Context, baseURL string) *Predial {
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "http":
		port = "80"
	case u.Scheme == "https":
		port = "443"
	default:
		return nil
	}
	// The environment as the transport reads it (http.ProxyFromEnvironment, which reads
	// it once per process: read here afresh, for tests that set it).
	if proxy, err := httpproxy.FromEnvironment().ProxyFunc()(u); err != nil || proxy != nil {
		return nil
	}
	p := &Predial{addr: net.JoinHostPort(u.Hostname(), port), done: make(chan struct{})}
	go func() { p.finish(newDialer().DialContext(ctx, "tcp", p.addr)) }()
	return p
}

// finish records how the early dial ended.
func (p *Predial) finish(conn net.Conn, err error) {
	p.mu.Lock()
	p.conn, p.err, p.ended = conn, err, true
	p.mu.Unlock()
	close(p.done)
}

// Close lets go of the connection if no request took it. It does not wait for a dial
// still under way: that one is closed when it ends.
func (p *Predial) Close() {
	if p != nil && p.taken.CompareAndSwap(false, true) {
		go p.discard()
	}
}

// discard closes the early connection once its dial has ended.
func (p *Predial) discard() {
	<-p.done
	if p.conn != nil {
		p.conn.Close()
	}
}

// wrap returns a transport's DialContext that takes p's connection for the first dial
// to its address, and dials with next otherwise.
func (p *Predial) wrap(next func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if p == nil {
		return next
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if network != "tcp" || addr != p.addr || !p.taken.CompareAndSwap(false, true) {
			return next(ctx, network, addr)
		}
		p.mu.Lock()
		if p.ended {
			conn, err := p.conn, p.err
			p.mu.Unlock()
			if err == nil {
				return conn, nil
			}
			return next(ctx, network, addr) // it failed before this dial: try again
		}
		p.waiting = true
		p.mu.Unlock()
		select {
		case <-p.done:
			if p.err == nil {
				return p.conn, nil
			}
			return nil, p.err
		case <-ctx.Done():
			go p.discard()
			return nil, ctx.Err()
		}
	}
}

// newDialer is the dialer of every connection to a model endpoint.
func newDialer() *net.Dialer {
	return &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
}

package model

import (
	"context"
	"net"
	"net/url"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// Predial is a connection to the model's endpoint opened while the run finishes setting
// itself up, so that the name look-up and the TCP handshake (tens of milliseconds across
// the internet) overlap that work instead of following it (issue 31). The first dial the
// client's transport makes to the same address takes it; any other dial, and the first
// one when the early dial failed, dials as usual, so a failure reads exactly as it would
// without a Predial. A nil *Predial dials as usual.
type Predial struct {
	addr  string
	done  chan struct{} // closed when the early dial ended
	conn  net.Conn
	err   error
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
	go func() {
		defer close(p.done)
		p.conn, p.err = newDialer().DialContext(ctx, "tcp", p.addr)
	}()
	return p
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
		if network == "tcp" && addr == p.addr && p.taken.CompareAndSwap(false, true) {
			select {
			case <-p.done:
				if p.err == nil {
					return p.conn, nil
				}
			case <-ctx.Done():
				go p.discard()
				return nil, ctx.Err()
			}
		}
		return next(ctx, network, addr)
	}
}

// newDialer is the dialer of every connection to a model endpoint.
func newDialer() *net.Dialer {
	return &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
}

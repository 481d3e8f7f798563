// Package hostproxy is the HTTP proxy through which a run's confined commands, and its
// FetchURL, reach the hosts --allow-host names and no others.
//
// It listens on 127.0.0.1 (commands get it as HTTP_PROXY and HTTPS_PROXY; the sandbox lets
// them connect to its port and to nothing else) and on a Unix socket (which a confined
// arm in a network namespace of its own relays its loopback port to). It speaks the two
// ways clients use a proxy: CONNECT host:port for a tunnel (HTTPS, and anything else a
// client tunnels), and a plain HTTP request with an absolute URL. Every request is checked
// against the rules before anything is dialled; a name is resolved here, and an address
// of this machine (any of its interfaces', loopback, link-local: the cloud's metadata
// service) is refused unless the rule itself names the address or localhost, so an
// allowed name cannot lead to the machine's own services, and the address checked is the
// address dialled.
//
// It serves its own run only. Its Unix socket lies in the shared temp dir, where any
// process of the user, a confined command of another run included, can connect to it; so
// the socket takes connections only from the processes the run names (its confined arms,
// which relay their commands' connections), by the process id the kernel records for the
// connecting end (SO_PEERCRED). The port on 127.0.0.1 needs no such check: a confined
// command may connect to its own run's proxy port only, and an unconfined process has the
// network anyway.
package hostproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DeniedHeader marks the proxy's own refusals (403), so that a client of kimi-run's own
// (FetchURL) can tell a refusal from the host's answer.
const DeniedHeader = "X-Kimi-Run-Denied"

// dialTimeout bounds one connection attempt to an allowed host.
const dialTimeout = 30 * time.Second

// Refusal is one request the proxy refused.
type Refusal struct {
	Host   string
	Port   int
	Reason string
}

// Proxy is a running proxy. Close it when the run ends.
type Proxy struct {
	rules   []Rule
	refused func(Refusal)
	tcp     net.Listener
	unix    net.Listener
	dir     string // holds the socket
	srv     *http.Server
	fwd     *httputil.ReverseProxy
	// lookup resolves a name (the system's resolver; tests replace it).
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)

	mu      sync.Mutex
	tunnels map[net.Conn]bool
	closed  bool
}

// Start starts a proxy for rules on 127.0.0.1:port (0: any free port) and on a Unix
// socket in a new private directory. refused, when set, hears of every refusal. peer
// decides which processes may use the socket, by the id of the process that connected
// (nil: none); the others' connections are closed unanswered.
func Start(rules []Rule, port int, refused func(Refusal), peer func(pid int) bool) (*Proxy, error) {
	p := &Proxy{rules: rules, refused: refused, tunnels: map[net.Conn]bool{},
		lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}}
	var err error
	if p.tcp, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err != nil {
		return nil, fmt.Errorf("start the --allow-host proxy: %w", err)
	}
	if p.dir, err = os.MkdirTemp("", "kimi-run-proxy-"); err != nil {
		p.tcp.Close()
		return nil, fmt.Errorf("start the --allow-host proxy: %w", err)
	}
	if p.unix, err = net.Listen("unix", filepath.Join(p.dir, "proxy.sock")); err != nil {
		p.tcp.Close()
		os.RemoveAll(p.dir)
		return nil, fmt.Errorf("start the --allow-host proxy: %w", err)
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           p.dialChecked,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 5 * time.Minute,
	}
	p.fwd = &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.Out.URL = r.In.URL; r.Out.Host = r.In.Host },
		Transport: transport,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			var d *deniedError
			if errors.As(err, &d) {
				p.deny(w, d)
				return
			}
			http.Error(w, "kimi-run's proxy: "+err.Error(), http.StatusBadGateway)
		},
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go p.srv.Serve(p.tcp)
	go p.srv.Serve(peerListener{p.unix, peer})
	return p, nil
}

// Port is the TCP port on 127.0.0.1.
func (p *Proxy) Port() int { return p.tcp.Addr().(*net.TCPAddr).Port }

// Socket is the Unix socket's path.
func (p *Proxy) Socket() string { return p.unix.Addr().String() }

// URL is the proxy's address for HTTP_PROXY and HTTPS_PROXY.
func (p *Proxy) URL() string { return "http://" + p.tcp.Addr().String() }

// Close stops the proxy and ends every tunnel.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.tunnels {
		c.Close()
	}
	p.mu.Unlock()
	err := p.srv.Close()
	os.RemoveAll(p.dir)
	return err
}

// peerListener passes on the connections of the processes allowed accepts, and closes
// the others at once.
type peerListener struct {
	net.Listener
	allowed func(pid int) bool
}

// Accept implements net.Listener.
func (l peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if pid, err := peerPID(c); err == nil && l.allowed != nil && l.allowed(pid) {
			return c, nil
		}
		c.Close()
	}
}

// deniedError is a request the rules do not allow.
type deniedError struct{ Refusal }

func (e *deniedError) Error() string {
	return fmt.Sprintf("%s: %s", net.JoinHostPort(e.Host, strconv.Itoa(e.Port)), e.Reason)
}

// ServeHTTP implements http.Handler: a CONNECT tunnel, or a request with an absolute
// http:// URL.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Scheme != "http" {
		http.Error(w, "kimi-run's proxy takes CONNECT host:port or a request for an absolute http:// URL", http.StatusBadRequest)
		return
	}
	host, port, err := hostPort(r.URL.Host, 80)
	if err != nil {
		http.Error(w, "kimi-run's proxy: "+err.Error(), http.StatusBadRequest)
		return
	}
	if _, d := p.allowed(host, port); d != nil {
		p.deny(w, d)
		return
	}
	p.fwd.ServeHTTP(w, r)
}

// tunnel answers CONNECT: dial the allowed host, then copy both ways.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	host, port, err := hostPort(r.Host, 0)
	if err != nil || port == 0 {
		http.Error(w, "kimi-run's proxy: CONNECT needs host:port", http.StatusBadRequest)
		return
	}
	rule, d := p.allowed(host, port)
	if d != nil {
		p.deny(w, d)
		return
	}
	up, err := p.dial(r.Context(), host, port, rule)
	if err != nil {
		if errors.As(err, &d) {
			p.deny(w, d)
			return
		}
		http.Error(w, "kimi-run's proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "kimi-run's proxy: cannot tunnel here", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !p.track(down, up) {
		return
	}
	defer p.untrack(down, up)
	if _, err := down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		// What the client sent after its CONNECT line is already buffered.
		if n := buf.Reader.Buffered(); n > 0 {
			b, _ := buf.Reader.Peek(n)
			up.Write(b)
		}
		io.Copy(up, down)
		closeWrite(up)
		close(done)
	}()
	io.Copy(down, up)
	closeWrite(down)
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.tunnels[c] = true
	}
	return true
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		c.Close()
		delete(p.tunnels, c)
	}
}

// allowed finds the rule that lets host:port through, or says why none does.
func (p *Proxy) allowed(host string, port int) (Rule, *deniedError) {
	for _, r := range p.rules {
		if r.matches(host, port) {
			return r, nil
		}
	}
	return Rule{}, &deniedError{Refusal{Host: host, Port: port, Reason: "not in --allow-host"}}
}

// dialChecked is the forwarding transport's dialler: the same rules, checked again.
func (p *Proxy) dialChecked(ctx context.Context, _, addr string) (net.Conn, error) {
	host, port, err := hostPort(addr, 0)
	if err != nil {
		return nil, err
	}
	rule, d := p.allowed(host, port)
	if d != nil {
		return nil, d
	}
	return p.dial(ctx, host, port, rule)
}

// dial resolves host and connects to the first address the rule allows: any, when the
// rule names the address itself (an IP, localhost); else only addresses that are not this
// machine's (any interface's, as the interfaces are now) nor on its loopback or
// link-local networks.
func (p *Proxy) dial(ctx context.Context, host string, port int, rule Rule) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a.Unmap()}
	} else {
		found, err := p.lookup(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
		for _, a := range found {
			addrs = append(addrs, a.Unmap())
		}
	}
	var usable []netip.Addr
	own, err := ownAddrs(rule)
	for _, a := range addrs {
		if rule.literal() || err == nil && !local(a) && !own[a] {
			usable = append(usable, a)
		}
	}
	if len(usable) == 0 {
		return nil, &deniedError{Refusal{Host: host, Port: port, Reason: fmt.Sprintf("it resolves to an address on this machine (%v), which only a rule naming that address or localhost allows", addrs)}}
	}
	var d net.Dialer
	var last error
	for _, a := range usable {
		c, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

// local reports an address of this machine or its link: loopback, link-local (the
// metadata service at 169.254.169.254), unspecified, multicast.
func local(a netip.Addr) bool {
	return a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast()
}

// ownAddrs are the addresses of this machine's interfaces now, unless the rule names its
// address itself and so needs none. An interface that comes up between this look and the
// dial is the one race left; the look is made per connection, not per run, to keep it
// short. When they cannot be read, no address but a literal rule's is dialled.
func ownAddrs(rule Rule) (map[netip.Addr]bool, error) {
	if rule.literal() {
		return nil, nil
	}
	nets, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	own := make(map[netip.Addr]bool, len(nets))
	for _, n := range nets {
		if ipn, ok := n.(*net.IPNet); ok {
			if a, ok := netip.AddrFromSlice(ipn.IP); ok {
				own[a.Unmap()] = true
			}
		}
	}
	return own, nil
}

// deny answers a refused request and reports it.
func (p *Proxy) deny(w http.ResponseWriter, d *deniedError) {
	if p.refused != nil {
		p.refused(d.Refusal)
	}
	w.Header().Set(DeniedHeader, "1")
	http.Error(w, "kimi-run refused the connection to "+d.Error()+" (the run's --allow-host list decides)", http.StatusForbidden)
}

// hostPort splits an authority into a lower-case host and a port (def when it has none).
func hostPort(authority string, def int) (string, int, error) {
	host, port := authority, def
	if h, p, err := net.SplitHostPort(authority); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, fmt.Errorf("bad port in %q", authority)
		}
		host, port = h, n
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "" {
		return "", 0, fmt.Errorf("no host in %q", authority)
	}
	return host, port, nil
}

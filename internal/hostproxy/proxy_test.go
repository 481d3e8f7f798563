package hostproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestParseRules(t *testing.T) {
	for _, tt := range []struct {
		in, want, err string
	}{
		{in: "example.com", want: "example.com"},
		{in: "Example.COM.", want: "example.com"},
		{in: "example.com:8443", want: "example.com:8443"},
		{in: "*.github.com", want: "*.github.com"},
		{in: "10.0.0.7:5000", want: "10.0.0.7:5000"},
		{in: "[::1]:8080", want: "[::1]:8080"},
		{in: "::1", want: "::1"},
		{in: "localhost:3000", want: "localhost:3000"},
		{in: "a.com, b.com:81", want: "a.com b.com:81"},
		{in: "https://example.com", err: "not a URL"},
		{in: "example.com/path", err: "not a URL"},
		{in: "example.com:0", err: "want 1 to 65535"},
		{in: "example.com:http", err: "want 1 to 65535"},
		{in: "exa mple.com", err: "not a URL"},
		{in: "bad!name", err: "not a host name"},
		{in: "*.", err: "not a host name"},
	} {
		rules, err := ParseRules([]string{tt.in})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		var got []string
		for _, r := range rules {
			got = append(got, r.String())
		}
		if err != nil || strings.Join(got, " ") != tt.want {
			t.Errorf("%q: %v, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestRuleMatches(t *testing.T) {
	rules, _ := ParseRules([]string{"example.com", "*.github.com:443", "10.0.0.7:5000"})
	p := &Proxy{rules: rules}
	for _, tt := range []struct {
		host string
		port int
		ok   bool
	}{
		{"example.com", 443, true},
		{"example.com", 80, true},
		{"example.com", 22, false},
		{"www.example.com", 443, false},
		{"api.github.com", 443, true},
		{"github.com", 443, false}, // *. is the subdomains only
		{"evilgithub.com", 443, false},
		{"api.github.com", 80, false},
		{"10.0.0.7", 5000, true},
		{"10.0.0.8", 5000, false},
	} {
		if _, d := p.allowed(tt.host, tt.port); (d == nil) != tt.ok {
			t.Errorf("%s:%d allowed = %v, want %v", tt.host, tt.port, d == nil, tt.ok)
		}
	}
}

// proxied starts a proxy for rules and an upstream server on 127.0.0.1, and returns a
// client through the proxy; refusals are collected.
func proxied(t *testing.T, rules ...string) (*Proxy, *http.Client, *[]Refusal) {
	t.Helper()
	return proxiedFor(t, func(pid int) bool { return pid == os.Getpid() }, rules...)
}

// proxiedFor is proxied with peer deciding who may use the socket.
func proxiedFor(t *testing.T, peer func(int) bool, rules ...string) (*Proxy, *http.Client, *[]Refusal) {
	t.Helper()
	rs, err := ParseRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var refused []Refusal
	p, err := Start(rs, 0, func(r Refusal) { mu.Lock(); refused = append(refused, r); mu.Unlock() }, peer)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	u, _ := url.Parse(p.URL())
	return p, &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u)}}, &refused
}

func upstream(t *testing.T, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }))
	t.Cleanup(srv.Close)
	return srv
}

func get(c *http.Client, u string) (int, string, error) {
	resp, err := c.Get(u)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// TestProxy: an allowed host is reached by a plain request and through a tunnel; any other
// is refused with 403 and the denial header, and reported.
func TestProxy(t *testing.T) {
	ok, other := upstream(t, "allowed"), upstream(t, "secret")
	okHost := strings.TrimPrefix(ok.URL, "http://")
	p, c, refused := proxied(t, okHost)
	if code, body, err := get(c, ok.URL+"/x"); err != nil || code != 200 || body != "allowed" {
		t.Errorf("allowed host: %d %q %v", code, body, err)
	}
	code, body, err := get(c, other.URL+"/x")
	if err != nil || code != 403 || strings.Contains(body, "secret") || !strings.Contains(body, "not in --allow-host") {
		t.Errorf("other host: %d %q %v", code, body, err)
	}
	tunnel := func(target string) string { return connect(t, p, target) }
	if got := tunnel(okHost); !strings.Contains(got, "200 Connection established") || !strings.Contains(got, "allowed") {
		t.Errorf("tunnel to the allowed host: %q", got)
	}
	if got := tunnel(strings.TrimPrefix(other.URL, "http://")); !strings.Contains(got, "403") || strings.Contains(got, "secret") {
		t.Errorf("tunnel to another host: %q", got)
	}
	if len(*refused) != 2 {
		t.Errorf("refusals reported: %v", *refused)
	}
}

// TestProxyRefusesLocalAddressesOfNames: a name that resolves to this machine (loopback,
// link-local: the metadata service) is refused unless the rule names the address or
// localhost; the address checked is the one dialled.
func TestProxyRefusesLocalAddressesOfNames(t *testing.T) {
	ok := upstream(t, "local service")
	port := ok.Listener.Addr().(*net.TCPAddr).Port
	p, c, _ := proxied(t, fmt.Sprintf("rebind.example:%d", port), fmt.Sprintf("metadata.example:%d", port), fmt.Sprintf("localhost:%d", port))
	p.lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "rebind.example":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		case "metadata.example":
			return []netip.Addr{netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("::ffff:127.0.0.1")}, nil
		}
		return net.DefaultResolver.LookupNetIP(context.Background(), "ip", host)
	}
	for _, host := range []string{"rebind.example", "metadata.example"} {
		code, body, err := get(c, fmt.Sprintf("http://%s:%d/", host, port))
		if err != nil || code != 403 || !strings.Contains(body, "resolves to an address on this machine") {
			t.Errorf("%s: %d %q %v", host, code, body, err)
		}
	}
	if code, body, err := get(c, fmt.Sprintf("http://localhost:%d/", port)); err != nil || code != 200 || body != "local service" {
		t.Errorf("localhost, named by its rule: %d %q %v", code, body, err)
	}
}

// TestProxyOnItsSocket: the Unix socket answers the processes it serves as the port does,
// with the same rules, and closes every other process's connection unanswered.
func TestProxyOnItsSocket(t *testing.T) {
	ok, other := upstream(t, "allowed"), upstream(t, "secret")
	p, _, _ := proxied(t, strings.TrimPrefix(ok.URL, "http://"))
	c := viaSocket(p)
	if code, body, _ := get(c, ok.URL); code != 200 || body != "allowed" {
		t.Errorf("allowed through the socket: %d %q", code, body)
	}
	if code, _, _ := get(c, other.URL); code != 403 {
		t.Errorf("other host through the socket: %d", code)
	}
	var mu sync.Mutex
	var asked []int
	stranger, _, _ := proxiedFor(t, func(pid int) bool { mu.Lock(); asked = append(asked, pid); mu.Unlock(); return false }, strings.TrimPrefix(ok.URL, "http://"))
	if code, body, err := get(viaSocket(stranger), ok.URL); err == nil || code != 0 || body != "" {
		t.Errorf("a process the socket does not serve: %d %q %v", code, body, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0] != os.Getpid() {
		t.Errorf("the socket asked about processes %v, want [%d]", asked, os.Getpid())
	}
	if code, body, _ := get(stranger.client(), ok.URL); code != 200 || body != "allowed" {
		t.Errorf("the port of that proxy: %d %q", code, body)
	}
}

// viaSocket is a client of p's socket.
func viaSocket(p *Proxy) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: "socket"}),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", p.Socket())
		},
	}}
}

// client is a client of p's port.
func (p *Proxy) client() *http.Client {
	u, _ := url.Parse(p.URL())
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
}

// TestProxyRefusesThisMachineThroughAName: a name that resolves to an address of one of
// this machine's interfaces (not loopback: its eth0, say) is refused, so a service
// listening on every address (a Docker daemon on TCP, a database) is not reached through
// an allowed name; a rule naming that address itself reaches it.
func TestProxyRefusesThisMachineThroughAName(t *testing.T) {
	own := ownAddress(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "machine service") }))
	l, err := net.Listen("tcp", ":0") // every address, as such services listen
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	port := l.Addr().(*net.TCPAddr).Port
	p, _, refused := proxied(t, fmt.Sprintf("svc.example.test:%d", port), netip.AddrPortFrom(own, uint16(port)).String())
	p.lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
		if host == "svc.example.test" {
			return []netip.Addr{own}, nil
		}
		return nil, fmt.Errorf("no such host %s", host)
	}
	if got := connect(t, p, fmt.Sprintf("svc.example.test:%d", port)); !strings.Contains(got, "403") || strings.Contains(got, "machine service") {
		t.Errorf("a name resolving to this machine's %v was let through: %q", own, got)
	}
	if len(*refused) != 1 || !strings.Contains((*refused)[0].Reason, "on this machine") {
		t.Errorf("refusals: %v", *refused)
	}
	if got := connect(t, p, netip.AddrPortFrom(own, uint16(port)).String()); !strings.Contains(got, "200 Connection established") || !strings.Contains(got, "machine service") {
		t.Errorf("the address allowed literally: %q", got)
	}
}

// ownAddress is an address of one of this machine's interfaces that is neither loopback
// nor link-local, or the test skips.
func ownAddress(t *testing.T) netip.Addr {
	t.Helper()
	nets, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("no interface addresses: %v", err)
	}
	for _, n := range nets {
		if ipn, ok := n.(*net.IPNet); ok {
			if a, ok := netip.AddrFromSlice(ipn.IP); ok && !local(a.Unmap()) {
				return a.Unmap()
			}
		}
	}
	t.Skip("this machine has no address but loopback and link-local ones")
	return netip.Addr{}
}

// connect asks the proxy's port for a tunnel to target, as an https:// client does, and
// sends a request through it; it returns all it reads.
func connect(t *testing.T, p *Proxy, target string) string {
	t.Helper()
	conn, err := net.Dial("tcp", p.tcp.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", target, target)
	b, _ := io.ReadAll(bufio.NewReader(conn))
	return string(b)
}

// TestProxyRefusesThisMachinesOwnName: the same through the system's resolver, where the
// machine's own host name resolves to an address of its interfaces other than loopback
// (many CI machines and containers); skipped where it does not.
func TestProxyRefusesThisMachinesOwnName(t *testing.T) {
	name, err := os.Hostname()
	if err != nil {
		t.Skipf("no host name: %v", err)
	}
	addrs, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip", name)
	if err != nil {
		t.Skipf("%s does not resolve: %v", name, err)
	}
	own, err := ownAddrs(Rule{})
	if err != nil {
		t.Skipf("no interface addresses: %v", err)
	}
	var mine []netip.Addr
	for _, a := range addrs {
		switch a = a.Unmap(); {
		case own[a] && !local(a):
			mine = append(mine, a)
		case !local(a):
			t.Skipf("%s resolves to %v, not all of them this machine's", name, addrs)
		}
	}
	if len(mine) == 0 {
		t.Skipf("%s resolves to %v, no address of this machine's but loopback", name, addrs)
	}
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	p, _, _ := proxied(t, net.JoinHostPort(name, strconv.Itoa(port)))
	if got := connect(t, p, net.JoinHostPort(name, strconv.Itoa(port))); !strings.Contains(got, "403") {
		t.Errorf("%s, which resolves to %v, was let through: %q", name, mine, got)
	}
}

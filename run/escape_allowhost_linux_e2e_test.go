//go:build linux

package run_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestEscapeAllowHost is the escape suite of --allow-host (issue 32 #8): a hostile model's
// commands try every way past the list — another host through the proxy, a tunnel to it,
// a straight connection to it and to the allowed host, the proxy's port on another
// address, TCP Fast Open, UDP — and FetchURL tries the host that is not listed. Only the
// allowed host answers, through the proxy; the other host's server never sees a request.
// Both ways commands can reach the proxy are tried: from a network namespace of their own
// (where this machine has one), and straight to its port (KIMI_RUN_NETNS=off), where the
// proxy's port on another address is the one gap docs/sandbox.md names. A control run
// without the flag shows the same attempts work, so each refusal is the sandbox's doing.
func TestEscapeAllowHost(t *testing.T) {
	t.Parallel()
	needLandlock(t, 4)
	probe := escapeProbe(t)
	allowed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "allowed-body") }))
	defer allowed.Close()
	var hits atomic.Int64
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "forbidden-body")
	}))
	defer forbidden.Close()
	allowedAddr, forbiddenAddr := allowed.Listener.Addr().String(), forbidden.Listener.Addr().String()

	for _, mode := range []string{"own network namespace", "no namespace"} {
		t.Run(mode, func(t *testing.T) {
			// Another host listening on the port the proxy will take on 127.0.0.1, a port
			// held free there until the run starts (any port free on 127.0.0.2 may be a
			// parallel test's connection's on 127.0.0.1). Another process may take it in
			// the moment it is let go: then the run is tried again on another.
			var port int
			var r result
			var other net.Listener
			for try := 1; ; try++ {
				var held net.Listener
				other, held = portOnBoth(t)
				defer other.Close()
				port = other.Addr().(*net.TCPAddr).Port
				otherAddr := other.Addr().String()
				attempts := map[string]string{
					"env":            `echo "$HTTPS_PROXY|$http_proxy|$NO_PROXY|$KIMI_RUN_SANDBOX"`,
					"ifaces":         `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ,`,
					"allowed":        probe + " proxied http://" + allowedAddr + "/",
					"other":          probe + " proxied http://" + forbiddenAddr + "/",
					"tunnel":         probe + " proxied https://" + forbiddenAddr + "/",
					"straight":       probe + " tcp " + forbiddenAddr,
					"straight-to-ok": probe + " tcp " + allowedAddr,
					"proxy-port":     probe + " tcp " + otherAddr,
					"tfo":            probe + " tfo " + otherAddr,
					"udp":            probe + " udp " + forbiddenAddr,
				}
				calls := []scripted.Part{
					scripted.CallID("fetch-ok", "FetchURL", fmt.Sprintf(`{"url":"http://%s/"}`, allowedAddr)),
					scripted.CallID("fetch-other", "FetchURL", fmt.Sprintf(`{"url":"http://%s/"}`, forbiddenAddr)),
				}
				for id, cmd := range attempts {
					calls = append(calls, scripted.CallID(id, "Shell", fmt.Sprintf(`{"command":%q}`, cmd)))
				}
				srv := scripted.New(t, scripted.ToolCalls(calls...), scripted.Text("done"))
				inv := invocation{args: []string{"--output-format", "stream-json", "--allow-host", allowedAddr,
					"--allow-host-port", strconv.Itoa(port), "-p", "x"}}
				if mode == "no namespace" {
					inv.env = map[string]string{"KIMI_RUN_NETNS": "off"}
				}
				held.Close()
				r = kimi(t, srv, inv)
				if try < 5 && r.code == 2 && strings.Contains(r.stdout, "address already in use") {
					continue
				}
				break
			}
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			evs := events(t, r.stdout)
			res := results(evs)
			isolated := !testkit.Any(evs, "warning", func(e map[string]any) bool {
				return strings.Contains(e["message"].(string), "cannot be given a network namespace of their own")
			})
			if mode == "no namespace" && isolated {
				t.Errorf("KIMI_RUN_NETNS=off: no warning of the gap")
			}
			if mode == "own network namespace" && !isolated {
				t.Logf("this machine gives no network namespace: the case runs as the other one")
			}
			// In its own network namespace a command sees loopback alone.
			if out, _ := res["ifaces"]["output"].(string); isolated != strings.HasSuffix(strings.TrimSpace(out), "\nlo,") {
				t.Errorf("isolated %v, and the commands see the interfaces %q", isolated, out)
			}
			want := fmt.Sprintf("http://127.0.0.1:%d|http://127.0.0.1:%d||off,allow-host", port, port)
			if out, _ := res["env"]["output"].(string); !strings.Contains(out, want) {
				t.Errorf("the commands' environment: %q, want %q", out, want)
			}
			for _, id := range []string{"allowed", "fetch-ok"} {
				if out, _ := res[id]["output"].(string); res[id]["is_error"] != false || !strings.Contains(out, "allowed-body") {
					t.Errorf("%s did not reach the allowed host: %v", id, res[id])
				}
			}
			refused := []string{"other", "tunnel", "straight", "straight-to-ok", "tfo", "udp", "fetch-other"}
			if isolated {
				refused = append(refused, "proxy-port")
			}
			for _, id := range refused {
				if out, _ := res[id]["output"].(string); res[id]["is_error"] != true || strings.Contains(out, "forbidden-body") || strings.Contains(out, ": done") {
					t.Errorf("%s was not refused: %v", id, res[id])
				}
			}
			if !testkit.Any(evs, "tool_denied", func(e map[string]any) bool { return e["id"] == "fetch-other" }) {
				t.Errorf("FetchURL's refused host is no tool_denied event")
			}
			if !testkit.Any(evs, "warning", func(e map[string]any) bool {
				return strings.Contains(e["message"].(string), "the sandbox refused a connection to "+forbiddenAddr)
			}) {
				t.Errorf("no warning names the refused host")
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("the host not listed got %d request(s)", n)
			}
			if isolated && pending(t, other.(*net.TCPListener), false) {
				t.Errorf("a command reached another host on the proxy's port from its own network namespace")
			}
		})
	}

	// The control: without --allow-host the same straight attempts reach the other host.
	srv := scripted.New(t, scripted.ToolCalls(scripted.CallID("straight", "Shell", fmt.Sprintf(`{"command":%q}`, probe+" tcp "+forbiddenAddr))), scripted.Text("done"))
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "x"}})
	if res := results(events(t, r.stdout)); res["straight"]["is_error"] != false {
		t.Errorf("the control connection failed: %v", res["straight"])
	}
}

// portOnBoth listens on one port on 127.0.0.2 and on 127.0.0.1, or skips where there is
// no 127.0.0.2.
func portOnBoth(t *testing.T) (other, held net.Listener) {
	t.Helper()
	for range 50 {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		o, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.2:%d", l.Addr().(*net.TCPAddr).Port))
		if err == nil {
			return o, l
		}
		l.Close()
		if !errors.Is(err, syscall.EADDRINUSE) {
			t.Skipf("no 127.0.0.2 here: %v", err)
		}
	}
	t.Fatal("no port free on both 127.0.0.1 and 127.0.0.2")
	return nil, nil
}

//go:build linux

package run_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestEscapeAnotherRunsProxy: a run's --allow-host proxy serves that run's commands only.
// While run 1 (--allow-host) waits in a Shell call, run 2 (--sandbox-network off, no hosts)
// finds run 1's proxy socket in the shared temp dir and asks it for run 1's allowed host:
// the socket serves run 1's confined arms only, and the host sees no request from run 2.
// Run 1's own command gets through (through that socket, where the machine gives it a
// network namespace), so the refusal is the socket's choice of client.
func TestEscapeAnotherRunsProxy(t *testing.T) {
	t.Parallel()
	needLandlock(t, 4)
	probe := escapeProbe(t)
	var hits atomic.Int64
	allowed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "allowed-body")
	}))
	defer allowed.Close()
	allowedURL := allowed.URL + "/"
	tmp, flags := t.TempDir(), t.TempDir()
	started, release := filepath.Join(flags, "started"), filepath.Join(flags, "release")

	wait := fmt.Sprintf(`touch %s; while [ ! -e %s ]; do sleep 0.05; done; echo released`, started, release)
	srv1 := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("own", "Shell", fmt.Sprintf(`{"command":%q}`, probe+" proxied "+allowedURL))),
		scripted.ToolCalls(scripted.CallID("wait", "Shell", fmt.Sprintf(`{"command":%q,"timeout":300}`, wait))),
		scripted.Text("done"))
	done := make(chan result, 1)
	go func() {
		done <- kimi(t, srv1, invocation{proc: true, env: map[string]string{"TMPDIR": tmp},
			args: []string{"--output-format", "stream-json", "--allow-host", strings.TrimPrefix(allowed.URL, "http://"), "-p", "x"}})
	}()
	var r1 result
	finished := false
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		select {
		case r1 = <-done:
			finished = true
		default:
		}
		if finished || time.Now().After(deadline) {
			os.WriteFile(release, nil, 0o644)
			t.Fatalf("run 1 never reached its waiting command\n%s\n%s", r1.stdout, r1.stderr)
		}
	}
	socks, _ := filepath.Glob(filepath.Join(tmp, "kimi-run-proxy-*", "proxy.sock"))
	if len(socks) != 1 {
		os.WriteFile(release, nil, 0o644)
		t.Fatalf("run 1's proxy socket in its temp dir: %v", socks)
	}
	before := hits.Load()

	srv2 := scripted.New(t, scripted.ToolCalls(
		scripted.CallID("socket", "Shell", fmt.Sprintf(`{"command":%q}`, probe+" via-socket "+socks[0]+" "+allowedURL)),
	), scripted.Text("done"))
	r2 := kimi(t, srv2, invocation{args: []string{"--output-format", "stream-json", "--sandbox-network", "off", "-p", "x"}})
	os.WriteFile(release, nil, 0o644)
	r1 = <-done

	if r2.code != 0 {
		t.Fatalf("run 2: exit %d\n%s\n%s", r2.code, r2.stdout, r2.stderr)
	}
	res := results(events(t, r2.stdout))
	if out, _ := res["socket"]["output"].(string); res["socket"]["is_error"] != true || strings.Contains(out, "allowed-body") {
		t.Errorf("run 2 used run 1's proxy: %v", res["socket"])
	}
	if n := hits.Load() - before; n != 0 {
		t.Errorf("run 1's allowed host got %d request(s) while run 2 tried", n)
	}
	if r1.code != 0 {
		t.Fatalf("run 1: exit %d\n%s\n%s", r1.code, r1.stdout, r1.stderr)
	}
	if out, _ := results(events(t, r1.stdout))["own"]["output"].(string); !strings.Contains(out, "allowed-body") {
		t.Errorf("run 1's own command did not reach its allowed host: %q", out)
	}
}

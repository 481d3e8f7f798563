package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/mcptest"
	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/mcp"
)

// serverBin is the stdio test server, built once.
var serverBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcp-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	serverBin = filepath.Join(dir, "mcp-test-server")
	build := exec.Command("go", "build", "-o", serverBin, "../../internal/mcptest/cmd/mcp-test-server")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the test server:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func stdio(name string, args ...string) mcp.Server {
	return mcp.Server{Name: name, Transport: mcp.Stdio, Command: serverBin,
		Args: append([]string{"-name", name}, args...), Env: os.Environ()}
}

func find(t *testing.T, ts []*mcp.Tool, name string) *mcp.Tool {
	t.Helper()
	for _, tool := range ts {
		if tool.Name() == name {
			return tool
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

func call(t *testing.T, tool *mcp.Tool, args string) (string, bool) {
	t.Helper()
	res, err := tool.Run(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("Run returned a Go error: %v", err)
	}
	return res.Output, res.IsError
}

func TestStdioAndHTTPServers(t *testing.T) {
	web := httptest.NewServer(mcptest.Handler(mcptest.Options{Name: "web"}, "tok3n"))
	defer web.Close()
	old := httptest.NewServer(mcptest.SSEHandler(mcptest.Options{Name: "old"}))
	defer old.Close()
	set := startSet(context.Background(), []mcp.Server{
		stdio("local"),
		{Name: "web", Transport: mcp.HTTP, URL: web.URL, Headers: map[string]string{"Authorization": "Bearer tok3n"}},
		{Name: "old", Transport: mcp.SSE, URL: old.URL},
	}, mcp.Options{})
	defer set.Close()
	for _, st := range set.Statuses() {
		if st.Err != nil {
			t.Fatalf("%s: %v", st.Name, st.Err)
		}
	}
	ts := set.Tools([]string{"Shell"})
	// Both servers offer the same tools, so every one is prefixed with its server's name.
	if out, isErr := call(t, find(t, ts, "local__echo"), `{"text":"hi"}`); isErr || out != "local says: hi" {
		t.Errorf("local echo = %q, %v", out, isErr)
	}
	if out, isErr := call(t, find(t, ts, "web__echo"), `{"text":"hi"}`); isErr || out != "web says: hi" {
		t.Errorf("web echo = %q, %v", out, isErr)
	}
	if out, isErr := call(t, find(t, ts, "old__echo"), `{"text":"hi"}`); isErr || out != "old says: hi" {
		t.Errorf("SSE echo = %q, %v", out, isErr)
	}
	if out, _ := call(t, find(t, ts, "web__add"), `{"a":2,"b":3}`); out != `{"sum":5}` {
		t.Errorf("add = %q", out)
	}
	if out, isErr := call(t, find(t, ts, "local__fail"), `{"reason":"nope"}`); !isErr || !strings.Contains(out, "nope") {
		t.Errorf("fail = %q, %v", out, isErr)
	}
	if out, _ := call(t, find(t, ts, "local__picture"), `{}`); out != fmt.Sprintf("a picture:\n[image: image/png, %d bytes, not shown]", len(mcptest.PNG)) {
		t.Errorf("picture = %q", out)
	}
	// The annotations as the server sent them (internal/mcptest): echo is read-only, add
	// has none (the spec's defaults), fail is additive and closed-world.
	for name, want := range map[string]tools.Facts{
		"web__echo":   {ReadOnly: true, Network: true, Where: tools.InServer},
		"web__add":    {Destructive: true, Network: true, Where: tools.InServer},
		"local__fail": {Where: tools.InServer},
	} {
		if got := find(t, ts, name).Facts(); got != want {
			t.Errorf("%s: facts %+v, want %+v", name, got, want)
		}
	}
}

// TestStdoutBannerIsSkipped: a server that prints a line that is not JSON on stdout before
// its handshake (a banner) still serves; the line is skipped, counted and kept for a warning.
func TestStdoutBannerIsSkipped(t *testing.T) {
	set := startSet(context.Background(), []mcp.Server{stdio("chatty", "-stdout", "Code Runner MCP Server running on stdio")}, mcp.Options{})
	defer set.Close()
	st := set.Statuses()[0]
	if st.Err != nil {
		t.Fatalf("start: %v", st.Err)
	}
	if st.Skipped != 1 || st.FirstSkipped != "Code Runner MCP Server running on stdio" {
		t.Errorf("skipped %d, first %q", st.Skipped, st.FirstSkipped)
	}
	if out, isErr := call(t, find(t, set.Tools(nil), "echo"), `{"text":"hi"}`); isErr || out != "chatty says: hi" {
		t.Errorf("echo = %q, %v", out, isErr)
	}
}

// TestHTTPServerDiesDuringACall: an HTTP server that goes away during a call, before its
// reply or in the middle of its reply stream, fails the call at once rather than at its
// timeout or after the transport's reconnect backoff, and is reported once as stopped, as
// a stdio server's exit is.
func TestHTTPServerDiesDuringACall(t *testing.T) {
	for _, midStream := range []bool{false, true} {
		t.Run(fmt.Sprintf("mid-stream=%v", midStream), func(t *testing.T) {
			h := mcptest.Handler(mcptest.Options{Name: "web"}, "")
			web := httptest.NewUnstartedServer(nil)
			web.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(b))
				if !bytes.Contains(b, []byte(`"tools/call"`)) {
					h.ServeHTTP(w, r)
					return
				}
				if midStream {
					// The reply stream begins, with an event id to resume from.
					w.Header().Set("Content-Type", "text/event-stream")
					w.WriteHeader(http.StatusOK)
					io.WriteString(w, "id: 1\ndata: \n\n")
					w.(http.Flusher).Flush()
				}
				web.Listener.Close() // the server is gone
				if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
					conn.Close()
				}
			})
			web.Start()
			defer web.Close()
			exited := make(chan string, 2)
			set := startSet(context.Background(), []mcp.Server{{Name: "web", Transport: mcp.HTTP, URL: web.URL}}, mcp.Options{
				CallTimeout: 10 * time.Minute,
				Exited:      func(server string, err error) { exited <- server + ": " + err.Error() },
			})
			defer set.Close()
			if st := set.Statuses()[0]; st.Err != nil {
				t.Fatalf("start: %v", st.Err)
			}
			out, isErr := call(t, find(t, set.Tools(nil), "slow"), `{"ms":600000}`)
			if !isErr || !strings.Contains(out, `MCP server "web" stopped answering during the call`) {
				t.Errorf("the call = %q, %v", out, isErr)
			}
			select {
			case msg := <-exited:
				if !strings.HasPrefix(msg, "web: ") {
					t.Errorf("exit report %q", msg)
				}
			default:
				t.Errorf("the lost server was not reported")
			}
		})
	}
}

func TestWrongTokenFailsStart(t *testing.T) {
	web := httptest.NewServer(mcptest.Handler(mcptest.Options{Name: "web"}, "right"))
	defer web.Close()
	set := startSet(context.Background(), []mcp.Server{{Name: "web", Transport: mcp.HTTP, URL: web.URL,
		Headers: map[string]string{"Authorization": "Bearer wrong"}}}, mcp.Options{})
	defer set.Close()
	if err := set.Statuses()[0].Err; err == nil {
		t.Fatal("started with the wrong token")
	}
	if ts := set.Tools(nil); len(ts) != 0 {
		t.Errorf("a failed server offers %d tools", len(ts))
	}
}

func TestStartFailures(t *testing.T) {
	set := startSet(context.Background(), []mcp.Server{
		stdio("good"),
		stdio("hangs", "-hang"),
		stdio("exits", "-fail", "cannot open the database"),
		{Name: "missing", Transport: mcp.Stdio, Command: "/nonexistent/mcp-server"},
	}, mcp.Options{StartupTimeout: 2 * time.Second})
	defer set.Close()
	want := map[string]string{
		"good":    "",
		"hangs":   "within 2s",
		"exits":   "exited during start-up (exit status 1); stderr: cannot open the database",
		"missing": "/nonexistent/mcp-server",
	}
	for _, st := range set.Statuses() {
		switch {
		case want[st.Name] == "" && st.Err != nil:
			t.Errorf("%s: %v", st.Name, st.Err)
		case want[st.Name] != "" && (st.Err == nil || !strings.Contains(st.Err.Error(), want[st.Name])):
			t.Errorf("%s: error %v, want it to mention %q", st.Name, st.Err, want[st.Name])
		}
	}
	if ts := set.Tools(nil); len(ts) == 0 || ts[0].Server() != "good" {
		t.Errorf("tools = %v", ts)
	}
}

func TestCrashAndTimeout(t *testing.T) {
	var mu sync.Mutex
	var exited []string
	crashed := make(chan struct{})
	set := startSet(context.Background(), []mcp.Server{stdio("s")}, mcp.Options{
		CallTimeout: 300 * time.Millisecond,
		Exited: func(server string, err error) {
			mu.Lock()
			exited = append(exited, server+": "+err.Error())
			mu.Unlock()
			close(crashed)
		},
	})
	defer set.Close()
	ts := set.Tools(nil)
	if out, isErr := call(t, find(t, ts, "slow"), `{"ms":5000}`); !isErr || !strings.Contains(out, "within 300ms") {
		t.Errorf("slow = %q, %v", out, isErr)
	}
	// The server still answers after a timed-out call.
	if out, isErr := call(t, find(t, ts, "echo"), `{"text":"still there"}`); isErr {
		t.Errorf("echo after timeout = %q", out)
	}
	if out, isErr := call(t, find(t, ts, "crash"), `{}`); !isErr || !strings.Contains(out, "exit status 3") {
		t.Errorf("crash = %q, %v", out, isErr)
	}
	<-crashed
	mu.Lock()
	if len(exited) != 1 || !strings.Contains(exited[0], "crashing on purpose") {
		t.Errorf("exit reports = %q", exited)
	}
	mu.Unlock()
	if out, isErr := call(t, find(t, ts, "echo"), `{"text":"x"}`); !isErr || !strings.Contains(out, "no longer running") {
		t.Errorf("echo after crash = %q, %v", out, isErr)
	}
}

func TestCloseKillsTheProcessGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	dir := t.TempDir()
	pidFile, childFile := filepath.Join(dir, "server.pid"), filepath.Join(dir, "child.pid")
	set := startSet(context.Background(), []mcp.Server{
		stdio("s", "-pidfile", pidFile, "-child-pidfile", childFile),
		stdio("stuck", "-hang", "-pidfile", filepath.Join(dir, "stuck.pid")),
	}, mcp.Options{StartupTimeout: 500 * time.Millisecond})
	pids := []int{readPID(t, pidFile), readPID(t, childFile), readPID(t, filepath.Join(dir, "stuck.pid"))}
	set.Close()
	for _, pid := range pids {
		if !gone(pid) {
			t.Errorf("process %d outlived Close", pid)
		}
	}
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// gone reports whether pid has exited; a zombie (not yet reaped by its new parent) counts.
func gone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

// startSet starts servers in a new Set, as run/ does.
func startSet(ctx context.Context, servers []mcp.Server, opts mcp.Options) *mcp.Set {
	set := mcp.NewSet(opts)
	set.Start(ctx, servers)
	return set
}

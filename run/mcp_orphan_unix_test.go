//go:build unix

package run_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// pidsIn reads the complete lines of a pid file; ok is false until it holds want of them.
func pidsIn(path string, want int) (pids []int, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	lines := strings.Split(string(b), "\n")
	for _, l := range lines[:len(lines)-1] { // the last piece has no newline yet
		if pid, err := strconv.Atoi(l); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, len(pids) >= want
}

// TestMCPServersDieWithTheRun: however the run ends — success, SIGTERM or SIGINT in the
// middle of a tool call, --timeout — no MCP server process, nor a process one started,
// outlives kimi-run.
func TestMCPServersDieWithTheRun(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	for _, tt := range []struct {
		name   string
		signal os.Signal
		args   []string
		code   int
		script []scripted.Response
	}{
		{name: "success", code: 0, script: []scripted.Response{scripted.ToolCalls(scripted.Call("a__echo", `{"text":"x"}`)), scripted.Text("done")}},
		{name: "SIGTERM", signal: syscall.SIGTERM, code: 143},
		{name: "SIGINT", signal: os.Interrupt, code: 130},
		{name: "timeout", args: []string{"--timeout", "2s"}, code: 124},
	} {
		for _, format := range []string{"text", "stream-json"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				a, b, child := filepath.Join(dir, "a.pid"), filepath.Join(dir, "b.pid"), filepath.Join(dir, "child.pid")
				cfg := mcpConfigFile(t, map[string]any{
					"a": stdioServer(t, "a", "-pidfile", a, "-child-pidfile", child),
					"b": stdioServer(t, "b", "-pidfile", b),
				})
				script := tt.script
				if script == nil {
					script = []scripted.Response{scripted.ToolCalls(scripted.Call("b__slow", `{"ms":120000}`))}
				}
				srv := scripted.New(t, script...)
				args := append([]string{"--output-format", format, "--mcp-config-file", cfg, "-p", "x"}, tt.args...)
				inv := invocation{srv: srv, args: args, signal: tt.signal, ready: func() bool {
					_, ok1 := pidsIn(a, 1)
					_, ok2 := pidsIn(b, 1)
					_, ok3 := pidsIn(child, 1)
					return ok1 && ok2 && ok3
				}}
				r := kimi(t, srv, inv)
				if r.code != tt.code {
					t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tt.code, r.stdout, r.stderr)
				}
				if format == "stream-json" {
					lastResult(t, r)
				}
				for _, f := range []string{a, b, child} {
					pids, ok := pidsIn(f, 1)
					if !ok {
						t.Fatalf("%s holds no pid", f)
					}
					for _, pid := range pids {
						if !testkit.ProcessGone(pid) {
							t.Errorf("%s (%d) outlived the run", filepath.Base(f), pid)
						}
					}
				}
			})
		}
	}
}

//go:build unix

package run_test

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

func TestStopLeavesNoOrphans(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	for _, tt := range []struct {
		name   string
		signal os.Signal
		args   []string
		code   int
	}{
		{name: "SIGTERM", signal: syscall.SIGTERM, code: 143},
		{name: "SIGINT", signal: os.Interrupt, code: 130},
		{name: "SIGHUP", signal: syscall.SIGHUP, code: 129},
		// The one case that needs a clock: the timeout must fire while the Shell call
		// runs. A second is plenty on a quiet machine; when the run timed out before the
		// call had started its processes, it is tried again with a longer timeout (4 s,
		// then 16 s) rather than passing on nothing or waiting 16 s every time.
		{name: "timeout", args: []string{"--timeout"}, code: 124},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			timeouts := []string{""}
			if len(tt.args) > 0 {
				timeouts = []string{"1s", "4s", "16s"}
			}
			var (
				dir, sessions string
				inv           invocation
				r             result
			)
			for i, timeout := range timeouts {
				dir, sessions = t.TempDir(), t.TempDir()
				// The command forks a grandchild that would outlive a plain kill of the shell.
				srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"(sleep 60 & echo $! > grandchild.pid); echo $$ > shell.pid; sleep 60"}`)))
				args := append([]string{"--session-dir", sessions, "--session", "stopped", "--output-format", "stream-json", "-p", "wait"}, tt.args...)
				if timeout != "" {
					args = append(args, timeout)
				}
				// A signal goes once the shell and its grandchild have recorded their pids.
				// The binary, not run.Main in process: what is under test is what is left
				// once the process is gone.
				inv = invocation{dir: dir, srv: srv, args: args, signal: tt.signal, signalOn: "tool_call", proc: true}
				inv.ready = func() bool {
					for _, f := range []string{"shell.pid", "grandchild.pid"} {
						if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || len(b) == 0 {
							return false
						}
					}
					return true
				}
				r = kimi(t, srv, inv)
				if inv.ready() || i == len(timeouts)-1 {
					break
				}
				t.Logf("--timeout %s fired before the Shell call had started; trying a longer one", timeout)
				for _, f := range []string{"shell.pid", "grandchild.pid"} {
					if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
						testkit.WaitGone(t, testkit.ReadPID(t, filepath.Join(dir, f)))
					}
				}
			}
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			lastResult(t, r)
			if !inv.ready() {
				t.Fatalf("the run ended before the Shell call had started its processes:\n%s", r.stderr)
			}
			for _, f := range []string{"shell.pid", "grandchild.pid"} {
				testkit.WaitGone(t, testkit.ReadPID(t, filepath.Join(dir, f)))
			}
			if _, err := os.Stat(filepath.Join(sessions, "stopped", "context.jsonl")); err != nil {
				t.Errorf("no session left behind: %v", err)
			}
		})
	}
}

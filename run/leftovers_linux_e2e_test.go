//go:build linux

package run_test

// What the processes kimi-run starts leave behind (issue 17 #6): nothing, however the run
// ends, within the limits docs/sandbox.md states.

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// A hook that starts a background process holding its output: the process is killed
// when the hook's command exits (it used to run on, and to hold every hook call for the
// 2 s pipe grace).
func TestHookBackgroundChildIsKilled(t *testing.T) {
	dir := t.TempDir()
	cfg := hookConfig(t, `
[[hooks]]
event = "PostToolUse"
command = "sleep 300 & echo $! > hookbg.pid"
`)
	srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo hi"}`)), scripted.Text("done"))
	r := kimi(t, srv, invocation{dir: dir, args: append(cfg, "--output-format", "stream-json", "-p", "x")})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	testkit.WaitGone(t, testkit.ReadPID(t, filepath.Join(dir, "hookbg.pid")))
}

// A second SIGTERM exits at once, and takes the running Shell command with it, though it
// ignores SIGTERM (it used to be left running). The last line is still the result (issue
// 25 #4: after a second signal it was missing in 2 runs of 6).
func TestSecondSignalKillsShellCommands(t *testing.T) {
	dir := t.TempDir()
	// The child records its pid once it ignores SIGTERM, so the first signal cannot end it.
	cmd := `trap 'echo > got-term' TERM; (trap '' TERM; echo $BASHPID > child.pid; exec sleep 300) & echo $$ > shell.pid; while :; do sleep 0.1; done`
	srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"`+cmd+`"}`)))
	has := func(name string) func() bool {
		return func() bool {
			b, err := os.ReadFile(filepath.Join(dir, name))
			return err == nil && len(b) > 0
		}
	}
	inv := invocation{dir: dir, srv: srv, args: []string{"--output-format", "stream-json", "-p", "x"},
		signal: syscall.SIGTERM, signalOn: "tool_call", ready: func() bool { return has("shell.pid")() && has("child.pid")() },
		again: has("got-term")}
	r := kimi(t, srv, inv)
	if r.code != 143 {
		t.Fatalf("exit %d, want 143\n%s", r.code, r.stderr)
	}
	if !has("got-term")() {
		t.Fatalf("the command never saw the first SIGTERM, so no second one was sent\n%s\n%s", r.stdout, r.stderr)
	}
	if res := lastResult(t, r); res["terminal_reason"] != "cancelled" {
		t.Errorf("result %v", res)
	}
	for _, f := range []string{"shell.pid", "child.pid"} {
		testkit.WaitGone(t, testkit.ReadPID(t, filepath.Join(dir, f)))
	}
}

// kimi-run killed with SIGKILL, which it cannot handle: the Shell command it was running
// and its MCP servers die with it, with the sandbox and without; so does everything they
// started, in their groups or out of them (a setsid'd daemon): the run's launcher, a
// process of its own that every child descends from, ends them all.
func TestSIGKILLTakesChildrenAlong(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		name := "plain"
		if sandboxed {
			name = "sandboxed"
		}
		t.Run(name, func(t *testing.T) {
			if sandboxed {
				needLandlock(t, 1)
			}
			dir := t.TempDir()
			server, serverChild := filepath.Join(dir, "server.pid"), filepath.Join(dir, "server-child.pid")
			cfg := mcpConfigFile(t, map[string]any{"a": stdioServer(t, "a", "-pidfile", server, "-child-pidfile", serverChild)})
			srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"(sleep 300; :) & echo $! > child.pid; (setsid sh -c 'echo $$ > daemon.pid; exec sleep 300' > /dev/null 2>&1 &); echo $$ > shell.pid; exec sleep 300"}`)))
			args := []string{"--output-format", "stream-json", "--mcp-config-file", cfg, "-p", "x"}
			if sandboxed {
				args = append(args, "--sandbox", "workspace-write")
			}
			inv := invocation{dir: dir, srv: srv, args: args, env: armVisible, signal: syscall.SIGKILL, signalOn: "tool_call", ready: func() bool {
				_, ok1 := pidsIn(server, 1)
				_, ok2 := pidsIn(serverChild, 1)
				b, err := os.ReadFile(filepath.Join(dir, "shell.pid"))
				d, derr := os.ReadFile(filepath.Join(dir, "daemon.pid"))
				return ok1 && ok2 && err == nil && len(b) > 0 && derr == nil && len(d) > 0
			}}
			r := kimi(t, srv, inv)
			if r.code != -1 {
				t.Fatalf("exit %d, want death by SIGKILL\n%s", r.code, r.stderr)
			}
			for _, f := range []string{"shell.pid", "child.pid", "daemon.pid"} {
				testkit.WaitGone(t, testkit.ReadPID(t, filepath.Join(dir, f)))
			}
			for _, f := range []string{server, serverChild} {
				pids, _ := pidsIn(f, 1)
				testkit.WaitGone(t, pids[0])
			}
		})
	}
}

// A launcher that does not answer kimi-run's "end" within its wait (stopped by someone
// outside, or starved on a loaded machine while it ends a large tree) must not take the
// run's guarantee with it: kimi-run used to kill it alone, which left a setsid'd daemon
// (and everything else below it but its direct children) to init, in a cgroup nobody
// ended. The run still ends with its signal's code, and nothing it started is left, with
// the sandbox and without.
func TestStoppedLauncherStillEndsTheRun(t *testing.T) {
	t.Parallel()
	command := `(setsid sh -c 'echo $$ > daemon.pid; exec sleep 300' > /dev/null 2>&1 &); (sleep 300; :) & echo $! > child.pid; ` +
		`until [ -s daemon.pid ]; do sleep 0.01; done`
	for _, sandboxed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandbox=%v", sandboxed), func(t *testing.T) {
			t.Parallel()
			args := []string{"--output-format", "stream-json", "-p", "x"}
			if sandboxed {
				needLandlock(t, 1)
				args = append(args, "--sandbox", "workspace-write")
			}
			dir := t.TempDir()
			srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", fmt.Sprintf(`{"command":%q}`, command))),
				scripted.Reply(scripted.Say("thinking"), scripted.Hang()))
			var top int
			var topStart uint64
			// Once the command is done and the next reply streams, the launcher is stopped
			// from outside; then kimi-run gets SIGTERM.
			inv := invocation{dir: dir, srv: srv, args: args, env: armVisible, signal: syscall.SIGTERM, signalAfter: 2, signalOn: "text", ready: func() bool {
				if top, _ = launchersOf(dir); top == 0 {
					return false
				}
				topStart = testkit.Started(top)
				return syscall.Kill(top, syscall.SIGSTOP) == nil
			}}
			r := kimi(t, srv, inv)
			if top != 0 {
				t.Cleanup(func() { testkit.Kill(top, topStart, false) })
			}
			if r.code != 143 {
				t.Fatalf("exit %d, want 143\n%s", r.code, r.stderr)
			}
			for _, f := range []string{"daemon.pid", "child.pid"} {
				testkit.WaitGone(t, testkit.ReadPID(t, filepath.Join(dir, f)))
			}
		})
	}
}

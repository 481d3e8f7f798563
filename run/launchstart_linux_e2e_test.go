//go:build linux

package run_test

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/launch/launcher"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// The launcher's start is on the path of a run's first child (issue 26, "as cheap as the
// command"): the binary in launcher mode must reach its loop without initialising the
// packages only a run needs. Go's own trace of the package initialisers says which ran;
// without a socket on descriptor 3 the launcher exits at once (125).
func TestLauncherModeSkipsTheRunsInitialisers(t *testing.T) {
	inits := func(args ...string) map[string]bool {
		t.Helper()
		cmd := exec.Command(binary, args...)
		cmd.Env = []string{"GODEBUG=inittrace=1"}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_ = cmd.Run()
		seen := map[string]bool{}
		for _, line := range strings.Split(stderr.String(), "\n") {
			if f := strings.Fields(line); len(f) > 2 && f[0] == "init" {
				seen[f[1]] = true
			}
		}
		if len(seen) == 0 {
			t.Fatalf("kimi-run %s printed no initialiser trace:\n%s", strings.Join(args, " "), stderr.String())
		}
		return seen
	}
	version := inits("--version")
	served := inits(launcher.ServeArg, "top", "{}")
	for _, pkg := range []string{
		"github.com/kimi-run/kimi-run/run",
		"github.com/kimi-run/kimi-run/tools/plugin",
		"github.com/alecthomas/kong",
		"github.com/modelcontextprotocol/go-sdk/mcp",
		"go.opentelemetry.io/otel/sdk/resource",
		"net/http",
	} {
		if !version[pkg] {
			t.Errorf("--version did not initialise %s: the list of heavy packages is out of date", pkg)
		}
		if served[pkg] {
			t.Errorf("the launcher mode initialised %s, which only a run needs", pkg)
		}
	}
	if len(served) >= len(version) {
		t.Errorf("the launcher mode ran %d package initialisers, --version %d", len(served), len(version))
	}
	t.Logf("package initialisers: launcher mode %d, --version %d", len(served), len(version))
}

// launchersOf finds the launcher processes of the kimi-run whose command line names dir
// (its work dir): the launcher's pid and its confined arm's, 0 for one not running.
func launchersOf(dir string) (top, box int) {
	entries, _ := os.ReadDir("/proc")
	args := func(pid string) []string {
		b, _ := os.ReadFile("/proc/" + pid + "/cmdline")
		return strings.Split(string(b), "\x00")
	}
	parent := func(pid string) string {
		b, _ := os.ReadFile("/proc/" + pid + "/stat")
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			if f := strings.Fields(s[i+1:]); len(f) > 1 {
				return f[1]
			}
		}
		return ""
	}
	runOf := func(pid string) bool { return slices.Contains(args(parent(pid)), dir) }
	for _, e := range entries {
		pid := e.Name()
		a := args(pid)
		if len(a) < 3 || a[1] != launcher.ServeArg {
			continue
		}
		n, _ := strconv.Atoi(pid)
		switch {
		case a[2] == "top" && runOf(pid):
			top = n
		case a[2] == "box" && runOf(parent(pid)):
			box = n
		}
	}
	return top, box
}

// A run whose model calls no tool that starts a process never starts the launcher
// process, even with a call in a reply that never ends.
func TestLauncherNotStartedWithoutACommand(t *testing.T) {
	for name, parts := range map[string][]scripted.Part{
		"ReadFile": {scripted.Call("ReadFile", `{"path":"a.txt"}`), scripted.Say("Looking.")},
		"no call":  {scripted.Say("Looking.")},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			srv := scripted.New(t, scripted.Reply(append(parts, scripted.Hang())...))
			args := []string{"--output-format", "stream-json", "--no-session", "-p", "x"}
			var top, box int
			ready := func() bool { top, box = launchersOf(dir); return true }
			r := kimi(t, srv, invocation{dir: dir, srv: srv, args: args, signal: syscall.SIGTERM, signalOn: "text", ready: ready})
			if len(testkit.OfType(events(t, r.stdout), "tool_call")) > 0 {
				t.Fatalf("a call was handed out from a reply that never ended:\n%s", r.stdout)
			}
			if top != 0 || box != 0 {
				t.Errorf("launcher %d, confined arm %d started for a reply that starts no process", top, box)
			}
		})
	}
}

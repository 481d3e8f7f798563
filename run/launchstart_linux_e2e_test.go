//go:build linux

package run_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/launch"
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
	served := inits(launch.ServeArg, "top", "{}")
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

package run_test

import (
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/tools"
)

// BenchmarkSandboxShellCall starts `bash -c true` the way the Shell tool does, directly
// ("off") and through the helper mode of the real kimi-run binary under each sandbox policy:
// the difference is what the sandbox adds to every Shell call (starting the helper, a Go
// program, building and applying the Landlock ruleset, and the exec into the shell).
// docs/performance.md has the figures.
func BenchmarkSandboxShellCall(b *testing.B) {
	work, tmp := b.TempDir(), b.TempDir()
	cases := []struct {
		name   string
		policy sandbox.Policy
		abi    int
	}{
		{"off", sandbox.Policy{Mode: sandbox.Off}, 0},
		{"read-only", sandbox.Policy{Mode: sandbox.ReadOnly, TempDir: tmp}, 1},
		{"workspace-write", sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}, TempDir: tmp}, 1},
		{"workspace-write+network-off", sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}, TempDir: tmp, NoNetwork: true}, 4},
	}
	_, shell := tools.ShellInfo()
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if sandbox.ABI() < c.abi {
				b.Skipf("needs Landlock ABI %d", c.abi)
			}
			argv := []string{shell, "-c", "true"}
			if c.policy.Active() {
				prefix, err := c.policy.Prefix(binary)
				if err != nil {
					b.Fatal(err)
				}
				argv = append(prefix, argv...)
			}
			// CPU time of the started process (the helper and the shell it became) is
			// steadier than wall time on a busy machine; it is reported beside ns/op.
			var cpu time.Duration
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = work
				cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				n++
			}
			b.ReportMetric(float64(cpu)/float64(n)/1e6, "cpu-ms/op")
		})
	}
}

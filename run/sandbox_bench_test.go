package run_test

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/tools"
)

// BenchmarkChildStart starts `bash -c true` and waits for it, side by side: from the
// benchmark itself with os/exec ("bare", what a program without a launcher pays), and the
// way every child of a run starts, through the launcher of the real kimi-run binary,
// unconfined ("launcher") and confined under each sandbox policy. The launcher is started
// before the timer, as a run starts it once; the difference from "bare" is what each
// Shell call, hook call or rg search pays. docs/performance.md has the figures.
func BenchmarkChildStart(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("the launcher process is Linux's")
	}
	work, tmp := b.TempDir(), b.TempDir()
	_, shell := tools.ShellInfo()
	argv := []string{shell, "-c", "true"}
	cases := []struct {
		name   string
		policy *sandbox.Policy
		abi    int
	}{
		{"bare", nil, 0},
		{"launcher", &sandbox.Policy{Mode: sandbox.Off}, 0},
		{"read-only", &sandbox.Policy{Mode: sandbox.ReadOnly, TempDir: tmp}, 1},
		{"workspace-write", &sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}, TempDir: tmp}, 1},
		{"workspace-write+network-off", &sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}, TempDir: tmp, NoNetwork: true}, 4},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if sandbox.ABI() < c.abi {
				b.Skipf("needs Landlock ABI %d", c.abi)
			}
			// CPU time of the started process is steadier than wall time on a busy machine;
			// it is reported beside ns/op.
			var cpu time.Duration
			var start func() time.Duration
			if c.policy == nil {
				start = func() time.Duration {
					cmd := exec.Command(argv[0], argv[1:]...)
					cmd.Dir = work
					cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
					if err := cmd.Run(); err != nil {
						b.Fatal(err)
					}
					return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				}
			} else {
				l := &launch.Launcher{Exe: binary, Environ: os.Environ(), Policy: *c.policy}
				b.Cleanup(l.Close)
				start = func() time.Duration {
					p, err := l.Start(launch.Spec{Path: argv[0], Args: argv, Dir: work, Confine: true, Keep: true})
					if err != nil {
						b.Fatal(err)
					}
					st := p.Wait()
					if !st.Success() {
						b.Fatalf("bash -c true: %s", st)
					}
					return st.User + st.System
				}
				start() // the launcher (and its confined arm) start here, once
			}
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				cpu += start()
				n++
			}
			b.ReportMetric(float64(cpu)/float64(n)/1e6, "cpu-ms/op")
		})
	}
}

package run_test

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/internal/launch/launcher"
	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/tools"
)

// BenchmarkChildStart starts `bash -c true` and waits for it the way every child of a run
// starts, through the launcher of the real kimi-run binary, unconfined ("launcher") and
// confined under each sandbox policy, and, alternating with it in the same loop, from the
// benchmark itself with os/exec (a bare start). The launcher is started before the timer,
// as a run starts it once. Besides ns/op (both starts) it reports the medians of each kind
// (bare-ms, launched-ms) and of their difference per iteration (extra-ms): what each Shell
// call, hook call or rg search pays beyond starting its command directly. Alternating
// keeps the comparison fair on a busy machine. docs/performance.md has the figures.
func BenchmarkChildStart(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("the launcher process is Linux's")
	}
	work, tmp := b.TempDir(), b.TempDir()
	_, shell := tools.ShellInfo()
	argv := []string{shell, "-c", "true"}
	cases := []struct {
		name   string
		policy sandbox.Policy
		abi    int
	}{
		{"launcher", sandbox.Policy{Mode: sandbox.Off}, 0},
		{"read-only", sandbox.Policy{Mode: sandbox.ReadOnly, TempDir: tmp}, 1},
		{"workspace-write", sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}, TempDir: tmp}, 1},
		{"workspace-write+network-off", sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}, TempDir: tmp, NoNetwork: true}, 4},
		{"workspace-write+namespaces", sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}, TempDir: tmp, Namespaces: true}, 1},
	}
	bare := func() {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = work
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if sandbox.ABI() < c.abi {
				b.Skipf("needs Landlock ABI %d", c.abi)
			}
			l := &launch.Launcher{Environ: os.Environ(), Policy: c.policy}
			l.Process = launcher.New(binary, l)
			b.Cleanup(l.Close)
			launched := func() {
				p, err := l.Start(launch.Spec{Path: argv[0], Args: argv, Dir: work, Confine: true, Keep: true})
				if err != nil {
					b.Fatal(err)
				}
				if st := p.Wait(); !st.Success() {
					b.Fatalf("bash -c true: %s", st)
				}
			}
			launched() // the launcher (and its confined arm) start here, once
			var bares, launches, extras []float64
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				bare()
				t1 := time.Now()
				launched()
				t2 := time.Now()
				bares = append(bares, ms(t1.Sub(t0)))
				launches = append(launches, ms(t2.Sub(t1)))
				extras = append(extras, ms(t2.Sub(t1)-t1.Sub(t0)))
			}
			b.ReportMetric(median(bares), "bare-ms")
			b.ReportMetric(median(launches), "launched-ms")
			b.ReportMetric(median(extras), "extra-ms")
		})
	}
}

// BenchmarkFirstChild is what a run's first child pays on top of the per-call cost of
// BenchmarkChildStart: each iteration makes a new launcher (as a run does), starts `bash -c
// true` through it and waits, then closes it (the end of the run), alternating with a bare
// start. first-ms is the median of the launched start minus the bare one: the launcher's
// own start (and under the sandbox its confined arm's), which a run's first child waits
// for when nothing started it earlier; close-ms is the median of Close, which the end of a
// run waits for. KIMI_RUN_BENCH_BINARY runs another kimi-run binary as the launcher (an
// older build, for a before and after). docs/performance.md has the figures.
func BenchmarkFirstChild(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("the launcher process is Linux's")
	}
	exe := binary
	if v := os.Getenv("KIMI_RUN_BENCH_BINARY"); v != "" {
		exe = v
	}
	work, tmp := b.TempDir(), b.TempDir()
	_, shell := tools.ShellInfo()
	argv := []string{shell, "-c", "true"}
	for _, c := range []struct {
		name   string
		policy sandbox.Policy
	}{
		{"plain", sandbox.Policy{Mode: sandbox.Off}},
		{"workspace-write", sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}, TempDir: tmp}},
		// As a run asks for them: the arm in namespaces of its own, with a process
		// namespace's init to start and, at the close, to tear down.
		{"workspace-write+namespaces", sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}, TempDir: tmp, Namespaces: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.policy.Active() && sandbox.ABI() < 1 {
				b.Skip("needs Landlock")
			}
			var firsts, closes []float64
			for b.Loop() {
				t0 := time.Now()
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = work
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				// As run configures it: the task limit under the sandbox only.
				l := &launch.Launcher{Environ: os.Environ(), Policy: c.policy}
				l.Process = launcher.New(exe, l)
				if c.policy.Active() {
					l.TaskLimit = 8192
				}
				p, err := l.Start(launch.Spec{Path: argv[0], Args: argv, Dir: work, Confine: true, Keep: true})
				if err != nil {
					b.Fatal(err)
				}
				if st := p.Wait(); !st.Success() {
					b.Fatalf("bash -c true: %s", st)
				}
				t2 := time.Now()
				l.Close()
				t3 := time.Now()
				firsts = append(firsts, ms(t2.Sub(t1)-t1.Sub(t0)))
				closes = append(closes, ms(t3.Sub(t2)))
			}
			b.ReportMetric(median(firsts), "first-ms")
			b.ReportMetric(median(closes), "close-ms")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// median of xs, which it sorts.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

package run_test

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/agentspec"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/run"
	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/tools"
)

// These benchmarks run the whole program in-process (run.Main) against the scripted server
// over real loopback HTTP. They measure what the process does per run after it has started:
// flag parsing, the system prompt, the HTTP client, streaming, tools, the NDJSON sink and,
// in the session variants, the session file. Process start-up and exit are measured end to
// end by scripts/bench.sh. The figures and how to read them are in docs/performance.md.
//
// Every run uses the agent file scripts/bench-agent.yaml (benchAgent): the default agent
// with Think, whose steps are the cheap successful tool steps measured below.
//
// The server shares the process, so its CPU time and allocations (it decodes every request
// body into a map) are counted in ns/op and allocs/op too; the figures are an upper bound
// for kimi-run itself. Each iteration gets a fresh server, started and closed outside the
// timer, so the requests it records do not pile up over a long -benchtime.

// benchPrompt is the task each benchmark run is given.
const benchPrompt = "Say that the benchmark is done."

// benchRun runs kimi-run once with --output-format stream-json against url and fails b
// unless it exits 0. Extra arguments come last; stdout goes to out.
func benchRun(b *testing.B, url, workDir string, out io.Writer, extra ...string) {
	env := map[string]string{
		"KIMI_API_KEY":    "sk-bench-not-a-real-key",
		"KIMI_BASE_URL":   url,
		"KIMI_MODEL_NAME": "bench-model",
		"HOME":            workDir,
	}
	args := append([]string{"-w", workDir, "--retry-base-delay", "0", "--retry-max-delay", "10ms",
		"--output-format", "stream-json", "-p", benchPrompt}, extra...)
	var stderr bytes.Buffer
	code := run.Main(args, run.IO{
		Stdout: out,
		Stderr: &stderr,
		Getenv: func(k string) string { return env[k] },
	}, "bench")
	if code != 0 {
		b.Fatalf("kimi-run exited %d\nstderr: %s", code, stderr.String())
	}
}

// benchTB hands scripted.New a TB whose cleanups run when close is called instead of at
// the end of the benchmark, so one server can live for just one iteration.
type benchTB struct {
	testing.TB
	cleanups []func()
}

func (t *benchTB) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }

func (t *benchTB) close() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	t.cleanups = nil
}

// benchTurns checks one run, then times b.N runs of the turn, each against a fresh server
// playing turn, and returns the time per run. wantCalls is the number of tool calls the
// check run must have made.
func benchTurns(b *testing.B, turn []scripted.Response, wantCalls int, extra ...string) time.Duration {
	dir := b.TempDir()
	check := &benchTB{TB: b}
	benchCheck(b, scripted.New(check, turn...).URL(), dir, wantCalls, extra...)
	check.close()

	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		tb := &benchTB{TB: b}
		s := scripted.New(tb, turn...)
		b.StartTimer()
		benchRun(b, s.URL(), dir, io.Discard, extra...)
		b.StopTimer()
		tb.close()
		b.StartTimer()
	}
	b.StopTimer()
	return b.Elapsed() / time.Duration(b.N)
}

// BenchmarkVersion is the in-process part of `kimi-run --version`: building the flag
// parser from the CLI struct and printing. Process start-up, the Go runtime and package
// initialisation come on top; scripts/bench.sh times the whole.
func BenchmarkVersion(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if code := run.Main([]string{"--version"}, run.IO{Stdout: io.Discard, Stderr: io.Discard}, "bench"); code != 0 {
			b.Fatalf("--version exited %d", code)
		}
	}
}

// BenchmarkHelp is the in-process part of --help: building the flag parser from the CLI
// struct and printing the help, which a run that parses its flags pays as well.
func BenchmarkHelp(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if code := run.Main([]string{"--help"}, run.IO{Stdout: io.Discard, Stderr: io.Discard}, "bench"); code != 0 {
			b.Fatalf("--help exited %d", code)
		}
	}
}

// BenchmarkOneAnswer is a run whose single model call streams a short answer: the fixed
// cost of a run, from parsing the flags to the result event. The session variant writes
// a fresh session file per run in a temporary directory, which fsyncs the new directory,
// the end of the turn and the close.
func BenchmarkOneAnswer(b *testing.B) {
	for _, session := range []bool{false, true} {
		name := "no-session"
		if session {
			name = "session"
		}
		b.Run(name, func(b *testing.B) {
			benchTurns(b, benchScript("Think", 0), 0, append(benchSessionArgs(b, session), benchAgent...)...)
		})
	}
}

// BenchmarkToolSteps runs turns of N tool steps and a final answer. steps=0 is the same
// run as BenchmarkOneAnswer and serves as the baseline: every other case reports
// ms/extra-step, its time per run minus the baseline's, divided by N. With Think the
// tool's own time is nil, so that is the agent's overhead per step (one more model call
// carrying the whole history, one tool call, its events). With Shell it includes
// starting `bash -c true` (see BenchmarkShellTrue) and the launcher's own start, once per
// run (twice under the sandbox: the launcher and its confined arm), spread over the steps.
func BenchmarkToolSteps(b *testing.B) {
	cases := []struct {
		tool    string
		session bool
		steps   []int
		extra   []string
	}{
		{"Think", false, []int{0, 1, 5, 20}, nil},
		{"Think", true, []int{0, 20}, nil},
		{"Shell", false, []int{0, 20}, nil},
		{"Shell", false, []int{0, 20}, []string{"--sandbox", "workspace-write"}},
	}
	for _, c := range cases {
		name := strings.ToLower(c.tool)
		if c.session {
			name += "-session"
		}
		if len(c.extra) > 0 {
			if runtime.GOOS != "linux" || sandbox.ABI() < 1 {
				continue
			}
			name += "-sandboxed"
		}
		var base time.Duration // time per run of steps=0 in this group, once it has run
		for _, n := range c.steps {
			b.Run(fmt.Sprintf("%s/steps=%d", name, n), func(b *testing.B) {
				args := append(append(benchSessionArgs(b, c.session), benchAgent...), c.extra...)
				perRun := benchTurns(b, benchScript(c.tool, n), n, args...)
				if n == 0 {
					base = perRun
				} else if base > 0 {
					b.ReportMetric(float64(perRun-base)/float64(n)/1e6, "ms/extra-step")
				}
			})
		}
	}
}

// BenchmarkShellTrue starts `bash -c true` the way the Shell tool does, without the agent:
// the tool's own time in the shell case of BenchmarkToolSteps, to subtract from its
// ms/extra-step.
func BenchmarkShellTrue(b *testing.B) {
	if runtime.GOOS == "windows" {
		b.Skip("the Shell tool may run PowerShell on Windows")
	}
	_, shell := tools.ShellInfo()
	b.ReportAllocs()
	for b.Loop() {
		cmd := exec.Command(shell, "-c", "true")
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchAgent gives a run the benchmarks' agent: the default one with Think, which the
// default agent does not offer.
var benchAgent = []string{"--agent-file", filepath.Join("..", "scripts", "bench-agent.yaml")}

// TestBenchAgentIsTheDefaultWithThink: the benchmarks' agent offers what the default agent
// offers, and Think; a run that offered other tools would measure other requests.
func TestBenchAgentIsTheDefaultWithThink(t *testing.T) {
	spec, err := agentspec.Load(benchAgent[1])
	if err != nil {
		t.Fatal(err)
	}
	if got, want := spec.ToolNames(), append(slices.Clone(defaultTools), "Think"); !slices.Equal(got, want) {
		t.Errorf("%s names %v\nwant %v", benchAgent[1], got, want)
	}
}

// benchSessionArgs keeps sessions in a temporary directory, or turns them off.
func benchSessionArgs(b *testing.B, session bool) []string {
	if session {
		return []string{"--session-dir", b.TempDir()}
	}
	return []string{"--no-session"}
}

// benchScript is one turn: n replies that each make one tool call, then the answer. The
// calls differ so that the loop guard, which stops a model repeating itself, stays quiet.
func benchScript(tool string, n int) []scripted.Response {
	var out []scripted.Response
	for i := range n {
		args := fmt.Sprintf(`{"thought":"step %d: check the next part of the task"}`, i+1)
		if tool == "Shell" {
			args = fmt.Sprintf(`{"command":"true # step %d"}`, i+1)
		}
		out = append(out, scripted.ToolCalls(scripted.Call(tool, args)))
	}
	return append(out, scripted.Text(fmt.Sprintf("Done after %d tool steps. The benchmark is complete.", n)))
}

// benchCheck runs once, untimed, and checks that the run did what the benchmark claims to
// measure: wantCalls successful tool calls and a completed result.
func benchCheck(b *testing.B, url, dir string, wantCalls int, extra ...string) {
	b.Helper()
	var out bytes.Buffer
	benchRun(b, url, dir, &out, extra...)
	stdout := out.String()
	const want = `"terminal_reason":"completed","exit_code":0,`
	if !strings.Contains(stdout, want) || !strings.Contains(stdout, fmt.Sprintf(`"tool_calls":%d,`, wantCalls)) {
		b.Fatalf("the check run did not complete with %d tool calls:\n%s", wantCalls, stdout)
	}
	if got := strings.Count(stdout, `"is_error":true`); got > 0 {
		b.Fatalf("%d tool calls failed in the check run:\n%s", got, stdout)
	}
}

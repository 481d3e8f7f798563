//go:build linux

package run_test

// Every input is bounded in size and in time (issue 25 #2): each flag that names a file,
// and the files a run finds by itself, given a file that never ends (/dev/zero,
// /dev/urandom), one that never starts (a FIFO nobody writes to) and one too big to hold
// (a 1 GB sparse file). The run ends with the right code, within its --timeout plus the
// stopper's grace, and its memory stays bounded.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// boundedRSS is the most memory (peak RSS) a run may take on any of these inputs: the
// largest cap is 128 MiB (a cassette), and a loaded machine needs room.
//
// The peak is the process's own VmHWM, read while it runs: the rusage of a child started
// by os/exec is no measure, since Linux keeps in it the high-water mark of the memory the
// child had before its exec, which is the (large) test process's when the child was made
// by vfork.
const boundedRSS = 512 << 20

// overstay is how long past its --timeout a run may take before the test calls it hung:
// the stopper's 10 s grace and 2 s last write, with a wide margin for a loaded machine.
// It is a limit on a hang, not a timing assertion.
const overstay = 90 * time.Second

// boundedResult is a finished run with its peak memory.
type boundedResult struct {
	result
	rss int64 // bytes
}

// runBounded runs the binary with args in dir against srv, and kills it (failing t) if it
// outlives overstay.
func runBounded(t testing.TB, srv *scripted.Server, dir string, args []string, env map[string]string) boundedResult {
	t.Helper()
	return runBoundedFrom(t, srv, nil, dir, args, env)
}

// runBoundedStdin is runBounded in a temp dir with stdin read from in.
func runBoundedStdin(t testing.TB, srv *scripted.Server, in *os.File, args []string) boundedResult {
	t.Helper()
	return runBoundedFrom(t, srv, in, t.TempDir(), args, nil)
}

// runBoundedFrom is runBounded with stdin read from in (nil: /dev/null).
func runBoundedFrom(t testing.TB, srv *scripted.Server, in *os.File, dir string, args []string, env map[string]string) boundedResult {
	t.Helper()
	full := map[string]string{
		"PATH":                     os.Getenv("PATH"),
		"HOME":                     t.TempDir(),
		"KIMI_API_KEY":             testKey,
		"KIMI_MODEL_NAME":          "test-model",
		"KIMI_BASE_URL":            srv.URL(),
		"KIMI_RUN_NO_ROOT_WARNING": "1",
	}
	for k, v := range env {
		full[k] = v
	}
	cmd := exec.Command(binary, append([]string{"-w", dir, "--retry-base-delay", "0"}, args...)...)
	for k, v := range full {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, coverEnv()...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if in != nil {
		cmd.Stdin = in
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if in != nil {
		in.Close() // the run holds the only read end: a writer sees it go when the run ends
	}
	watch := watchHWM(cmd.Process.Pid)
	hung := time.AfterFunc(overstay, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	rss := watch()
	if !hung.Stop() {
		t.Fatalf("the run was still going %v after it started: killed\nstderr: %s", overstay, stderr.String())
	}
	var exitErr *exec.ExitError
	code := 0
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return boundedResult{result: checkNoKey(t, result{stdout: stdout.String(), stderr: stderr.String(), code: code}), rss: rss}
}

// watchHWM reads the peak RSS (VmHWM) of process pid until the returned function is
// called, which returns the last value read, in bytes. VmHWM only grows, so the last read
// before the process exits is its peak up to then.
func watchHWM(pid int) func() int64 {
	var peak atomic.Int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			if kb := vmHWM(pid); kb > 0 {
				peak.Store(kb << 10)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(done)
		<-stopped
		return peak.Load()
	}
}

// vmHWM reads VmHWM from /proc/PID/status, in KiB; 0 when it cannot.
func vmHWM(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}

// kinds of hostile file, each made at a path.
var hostileKinds = []struct {
	name string
	make func(t *testing.T, path string)
}{
	{"dev-zero", func(t *testing.T, p string) { mustLink(t, "/dev/zero", p) }},
	{"dev-urandom", func(t *testing.T, p string) { mustLink(t, "/dev/urandom", p) }},
	{"fifo", func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}},
	{"1GB-sparse", func(t *testing.T, p string) {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(1 << 30); err != nil {
			t.Fatal(err)
		}
	}},
}

func mustLink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// TestEveryFileInputIsBounded is the walk of issue 25 #2. want gives the exit code for
// each kind: 2 for a file refused (too large, or not a regular file where only one
// does), 124 for a FIFO read under the run's deadline that never gets a writer, 0 for a
// file the run finds by itself and passes over.
func TestEveryFileInputIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a hundred runs of the binary")
	}
	type codes map[string]int
	refused := codes{"dev-zero": 2, "dev-urandom": 2, "fifo": 2, "1GB-sparse": 2}
	waited := codes{"dev-zero": 2, "dev-urandom": 2, "fifo": 124, "1GB-sparse": 2}
	passedOver := codes{"dev-zero": 0, "dev-urandom": 0, "fifo": 0, "1GB-sparse": 0}
	for _, tt := range []struct {
		flag string
		name string // the file's name (a flow's extension says its language)
		// args makes the command line from the file's path and the run's dirs.
		args func(path, work, home string) []string
		// place says where the file goes instead of a temp dir of its own: relative to
		// the work dir or HOME (files the run finds).
		place string
		home  bool
		env   map[string]string
		want  codes
	}{
		{flag: "--prompt-file", name: "prompt.txt", want: waited},
		// Read while the command line is parsed, before the clock: a regular file only.
		{flag: "--config-file", name: "config.toml", want: refused},
		{flag: "--mcp-config-file", name: "mcp.json", want: waited},
		{flag: "--agent-file", name: "agent.yaml", want: refused},
		{flag: "--flow", name: "flow.mmd", want: refused},
		{flag: "--json-schema", name: "schema.json", want: waited},
		{flag: "--system-prompt", name: "system.md", want: waited},
		{flag: "--append-system-prompt", name: "extra.md", want: waited},
		{flag: "--replay", name: "run.cassette.jsonl", want: waited},
		{flag: "--image", name: "shot.png", env: map[string]string{"KIMI_MODEL_CAPABILITIES": "image_in"}, want: waited},
		{flag: "--output-last-message", name: "answer.md", want: codes{"dev-zero": 2, "dev-urandom": 2, "fifo": 2, "1GB-sparse": 0}},
		{flag: "--record", name: "out.cassette.jsonl", want: codes{"dev-zero": 2, "dev-urandom": 2, "fifo": 2, "1GB-sparse": 0}},
		{flag: "--session", name: "context.jsonl", place: "sessions/s1/context.jsonl", want: refused,
			args: func(_, work, _ string) []string {
				return []string{"--session-dir", filepath.Join(work, "sessions"), "--session", "s1"}
			}},
		{flag: "config.toml", name: "config.toml", place: ".kimi/config.toml", home: true, want: refused},
		{flag: "mcp.json", name: "mcp.json", place: ".kimi/mcp.json", home: true, want: waited},
		{flag: "AGENTS.md", name: "AGENTS.md", place: "AGENTS.md", want: passedOver},
		{flag: "SKILL.md", name: "SKILL.md", place: ".kimi/skills/hostile/SKILL.md", want: passedOver},
	} {
		for _, kind := range hostileKinds {
			t.Run(strings.TrimLeft(tt.flag, "-")+"/"+kind.name, func(t *testing.T) {
				t.Parallel()
				srv := scripted.New(t, scripted.Text("done"))
				work, home := t.TempDir(), t.TempDir()
				path := filepath.Join(t.TempDir(), tt.name)
				if tt.place != "" {
					base := work
					if tt.home {
						base = home
					}
					path = filepath.Join(base, tt.place)
					if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
						t.Fatal(err)
					}
				}
				kind.make(t, path)
				var args []string
				switch {
				case tt.args != nil:
					args = tt.args(path, work, home)
				case tt.place == "":
					args = []string{tt.flag, path}
				}
				env := map[string]string{"HOME": home}
				for k, v := range tt.env {
					env[k] = v
				}
				// Long enough that a loaded machine reads 20 MiB of /dev/urandom within it:
				// only a FIFO should meet it.
				args = append(args, "--timeout", "8s", "--output-format", "stream-json")
				if tt.flag != "--prompt-file" {
					args = append(args, "-p", "go")
				}
				r := runBounded(t, srv, work, args, env)
				want := tt.want[kind.name]
				if r.code != want {
					t.Errorf("exit %d, want %d\nstderr: %s", r.code, want, r.stderr)
				}
				if r.rss > boundedRSS {
					t.Errorf("peak RSS %d MiB, more than %d MiB", r.rss>>20, boundedRSS>>20)
				}
				last := lastEvent(t, r.stdout)
				if last["type"] != "result" || last["exit_code"] != float64(r.code) {
					t.Errorf("last line %v, want the result of exit %d", last, r.code)
				}
				if want == 2 && !strings.Contains(r.stderr, filepath.Base(path)) && !strings.Contains(r.stderr, "s1") {
					t.Errorf("stderr does not name the file:\n%s", r.stderr)
				}
			})
		}
	}
}

// lastEvent decodes the last line of an NDJSON stdout; nil when there is none.
func lastEvent(t *testing.T, stdout string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
		return map[string]any{"unparsed": fmt.Sprintf("%q", lines[len(lines)-1])}
	}
	return m
}

// --timeout is a guarantee even when the run's own goroutine is stuck in a system call:
// here a write to a stdout that nobody reads. The process still ends with 124, once the
// stopper's grace and its bounded last write have passed (the result cannot reach a
// stdout that takes nothing: the exit wins, as the README says).
func TestTimeoutWinsOverAStuckWrite(t *testing.T) {
	t.Parallel()
	// Far more text than a pipe holds, in many deltas: the events fill the pipe.
	var parts []scripted.Part
	for range 2000 {
		parts = append(parts, scripted.Say(strings.Repeat("x", 200)))
	}
	srv := scripted.New(t, scripted.Reply(append(parts, scripted.Hang())...))
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	cmd := exec.Command(binary, "-w", t.TempDir(), "--output-format", "stream-json", "--timeout", "1s", "-p", "go")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "KIMI_API_KEY=" + testKey,
		"KIMI_MODEL_NAME=m", "KIMI_BASE_URL=" + srv.URL(), "KIMI_RUN_NO_ROOT_WARNING=1"}, coverEnv()...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = wr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wr.Close()
	hung := time.AfterFunc(overstay, func() { cmd.Process.Kill() })
	err = cmd.Wait()
	if !hung.Stop() {
		t.Fatalf("the run outlived its --timeout by %v with stdout blocked: killed\n%s", overstay, stderr.String())
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 124 {
		t.Fatalf("exit %v, want 124\n%s", err, stderr.String())
	}
}

// SIGQUIT ends the run like SIGTERM, with its own code and a result, and prints no
// goroutine stacks unless KIMI_RUN_QUIT_STACKS=1 asks for them (issue 25 #4: it dumped 340
// lines into the CI log and exited 2).
func TestSIGQUITStacksOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	for _, stacks := range []bool{false, true} {
		t.Run(fmt.Sprint("stacks=", stacks), func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Reply(scripted.Say("thinking"), scripted.Hang()))
			inv := invocation{srv: srv, args: []string{"--output-format", "stream-json", "-p", "wait"}, signal: syscall.SIGQUIT}
			if stacks {
				inv.env = map[string]string{"KIMI_RUN_QUIT_STACKS": "1"}
			}
			r := kimi(t, srv, inv)
			if r.code != 131 {
				t.Fatalf("exit %d, want 131\n%s", r.code, r.stderr)
			}
			lastResult(t, r)
			if got := strings.Contains(r.stderr, "goroutine "); got != stacks {
				t.Errorf("stacks on stderr: %v, want %v\n%.2000s", got, stacks, r.stderr)
			}
		})
	}
}

// A provider that keeps sending text for ever (issue 25 #3: 241 MB after 5 s, 796 MB after
// 25 s, and --stream-idle-timeout never fires since bytes keep coming) has its reply cut at
// --max-reply-bytes (or loop_control.max_reply_bytes), asked again like a broken stream,
// and the run ends with 75 once every attempt was cut; its memory stays bounded.
func TestEndlessReplyIsCut(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		args   []string
		config string
	}{
		{name: "flag", args: []string{"--max-reply-bytes", "4194304"}},
		{name: "config key", config: "[loop_control]\nmax_reply_bytes = 4194304\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Reply(scripted.SayBytes(-1, 8192)).Forever())
			home := t.TempDir()
			if tt.config != "" {
				home = kimiConfig(t, tt.config)
			}
			args := append([]string{"--output-format", "stream-json", "--max-retries", "1", "-p", "go"}, tt.args...)
			r := runBounded(t, srv, t.TempDir(), args, map[string]string{"HOME": home})
			if r.code != 75 {
				t.Fatalf("exit %d, want 75\n%s", r.code, r.stderr)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d requests, want 2 (the cut reply asked again once)", n)
			}
			last := lastEvent(t, r.stdout)
			msg, _ := last["error"].(map[string]any)["message"].(string)
			if last["type"] != "result" || !strings.Contains(msg, "4 MiB") || !strings.Contains(msg, "--max-reply-bytes") {
				t.Errorf("last line %v", last)
			}
			if r.rss > boundedRSS {
				t.Errorf("peak RSS %d MiB", r.rss>>20)
			}
		})
	}
}

// BenchmarkLongReplyRun runs the binary on one long reply, streamed in 4 KiB chunks with
// stream-json output (every delta an event), and reports its peak RSS: an 8 MiB answer, and
// a reply that never ends, cut at the default --max-reply-bytes (16 MiB, one attempt).
// Figures are in docs/performance.md.
//
//	go test ./run/ -run '^$' -bench LongReplyRun -benchtime 3x
func BenchmarkLongReplyRun(b *testing.B) {
	for _, tt := range []struct {
		name  string
		reply scripted.Response
		code  int
	}{
		{"answer-1KB", scripted.Reply(scripted.SayBytes(1<<10, 1<<10)), 0},
		{"answer-1MB", scripted.Reply(scripted.SayBytes(1<<20, 4096)), 0},
		{"answer-8MB", scripted.Reply(scripted.SayBytes(8<<20, 4096)), 0},
		{"endless-cut-at-16MB", scripted.Reply(scripted.SayBytes(-1, 4096)), 75},
	} {
		b.Run(tt.name, func(b *testing.B) {
			var peak int64
			for b.Loop() {
				srv := scripted.New(b, tt.reply)
				r := runBounded(b, srv, b.TempDir(), []string{"--output-format", "stream-json", "--max-retries", "0", "--no-session", "-p", "go"}, nil)
				if r.code != tt.code {
					b.Fatalf("exit %d\n%.500s", r.code, r.stderr)
				}
				peak = max(peak, r.rss)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MiB")
		})
	}
}

// An MCP server that floods its stdout with one message that never ends during the
// handshake (a broken or hostile server) fails at the MCP SDK's frame limit (16 MiB), and
// the run goes on without it, instead of growing by gigabytes until the start-up timeout.
func TestMCPServerFloodIsBounded(t *testing.T) {
	t.Parallel()
	flood := mcpConfigFile(t, map[string]any{"flood": map[string]any{"command": "sh", "args": []string{"-c", `printf '{"jsonrpc":"2.0","id":1,"result":"'; exec tr '\000' x < /dev/zero`}}})
	srv := scripted.New(t, scripted.Text("done"))
	r := runBounded(t, srv, t.TempDir(), []string{"--mcp-config-file", flood, "--output-format", "stream-json", "-p", "go"}, nil)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0 (the run goes on without the server)\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "flood") {
		t.Errorf("nothing says the server failed:\n%s", r.stdout)
	}
	if r.rss > boundedRSS {
		t.Errorf("peak RSS %d MiB", r.rss>>20)
	}
}

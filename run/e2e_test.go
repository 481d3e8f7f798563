package run_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/eventschema"
	"github.com/kimi-run/kimi-run/internal/launch/launcher"
	"github.com/kimi-run/kimi-run/internal/scripted"
)

// binary is the kimi-run executable built once for the end-to-end tests.
var binary string

// coverDir, when set (KIMI_RUN_COVERDIR, see scripts/cover.sh), is where the binary, built
// with -cover, writes its coverage counters; every run of it gets GOCOVERDIR (coverEnv).
var coverDir string

// coverEnv is what a subprocess's environment needs for the binary to record its
// coverage: GOCOVERDIR when coverage is collected, else nothing. Without it a binary
// built with -cover would warn on stderr at exit.
func coverEnv() []string {
	if coverDir == "" {
		return nil
	}
	return []string{"GOCOVERDIR=" + coverDir}
}

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == launcher.ServeArg {
		// An in-process run.Main starts its own executable, this test binary, as its
		// launcher (and, under --sandbox, the launcher's confined arm): act as one rather
		// than run every test again.
		os.Exit(launcher.Serve(os.Args[2:]))
	}
	flag.Parse()
	parallelByDefault()
	dir, err := os.MkdirTemp("", "kimi-run-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// The tests' temp dirs, and the runs', share a temp dir of their own: where a sandboxed
	// run's commands get a /tmp of their own, that one is covered, while the binaries built
	// here stay in sight (tests run them as commands and MCP servers).
	// (A short name: a proxy's socket path in it must fit in 108 bytes.)
	tmp, err := os.MkdirTemp("", "kr")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Chmod(tmp, 0o777|os.ModeSticky) // as /tmp: a test runs kimi-run as another user
	os.Setenv("TMPDIR", tmp)
	binary = filepath.Join(dir, "kimi-run")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	// go test puts its own GOROOT/bin first on PATH, so "go" is the toolchain under test.
	build := exec.Command("go", "build", "-o", binary, "..")
	if coverDir = os.Getenv("KIMI_RUN_COVERDIR"); coverDir != "" {
		// scripts/cover.sh: the binary counts what it runs into coverDir as well, so the
		// subprocess runs count towards run/'s coverage (go tool covdata merges them).
		build = exec.Command("go", "build", "-cover", "-coverpkg=github.com/kimi-run/kimi-run/...", "-o", binary, "..")
	}
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building kimi-run:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.RemoveAll(tmp)
	os.Exit(code)
}

// parallelByDefault raises -parallel to four tests per CPU unless the command line set it:
// run/'s parallel tests mostly wait (on a timeout under test, a grace period, a process to
// start or end), so GOMAXPROCS of them at a time leaves the CPUs idle.
func parallelByDefault() {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
}

// testKey is the API key handed to every run; no output may ever contain it.
const testKey = "sk-e2e-5ecret-k3y-0123456789"

type result struct {
	stdout, stderr string
	code           int
}

type invocation struct {
	args  []string
	stdin *string // nil: /dev/null
	env   map[string]string
	dir   string
	// signal, when set, is sent once the run has reached the point under test, which
	// kimi waits for as conditions, not time:
	//   - the server has received signalAfter requests (at least one);
	//   - with stream-json output, stdout has shown an event of type signalOn after the
	//     signalAfter-th step_begin event (by default a text, thinking or tool_call
	//     event: the model's reply has begun to arrive and been handled);
	//   - ready, when set, holds (it is polled).
	// A run that ends first is left alone; one that never gets there within a minute
	// fails the test and is killed.
	signal      os.Signal
	signalAfter int
	signalOn    string
	ready       func() bool
	// again, when set, sends the signal a second time once it holds (polled).
	again func() bool
	srv   *scripted.Server
	// bin runs this kimi-run executable instead of the one built for the tests.
	bin string
	// proc runs the built binary as a subprocess even when nothing else asks for one (see
	// inProcess): for what only a process shows, such as its exit through os.Exit, what
	// it leaves behind when it is gone, or process-wide state a parallel test would share.
	proc bool
}

// inProcess reports whether kimi runs inv by calling run.Main in the test process: the
// default, as it costs no process start. A signal, another executable, proc, or
// KIMI_RUN_TEST_SUBPROCESS=1 (every run as a subprocess, as before; for comparing the two)
// take the real binary instead.
func (inv invocation) inProcess() bool {
	return inv.signal == nil && inv.bin == "" && !inv.proc && os.Getenv("KIMI_RUN_TEST_SUBPROCESS") != "1"
}

// kimi runs the binary against srv with a clean environment.
func kimi(t *testing.T, srv *scripted.Server, inv invocation) result {
	t.Helper()
	if inv.dir == "" {
		inv.dir = t.TempDir()
	}
	if srv == nil {
		srv = inv.srv
	}
	env := map[string]string{
		"PATH":            os.Getenv("PATH"),
		"HOME":            t.TempDir(),
		"TMPDIR":          os.TempDir(),
		"KIMI_API_KEY":    testKey,
		"KIMI_MODEL_NAME": "test-model",
		// Tests may run as root on a bare VM; the warning for that has its own test.
		"KIMI_RUN_NO_ROOT_WARNING": "1",
	}
	if srv != nil {
		env["KIMI_BASE_URL"] = srv.URL()
	}
	if coverDir != "" && !inv.inProcess() {
		env["GOCOVERDIR"] = coverDir
	}
	for k, v := range inv.env {
		if v == "" {
			delete(env, k)
		} else {
			env[k] = v
		}
	}
	args := append([]string{"-w", inv.dir, "--retry-base-delay", "0", "--retry-max-delay", "10ms"}, inv.args...)
	if inv.inProcess() {
		return checkNoKey(t, mainInProcess(t, args, env, inv.stdin))
	}
	bin := binary
	if inv.bin != "" {
		bin = inv.bin
	}
	cmd := exec.Command(bin, args...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if inv.stdin != nil {
		cmd.Stdin = strings.NewReader(*inv.stdin)
	}
	var stderr bytes.Buffer
	stdout := &eventWatcher{}
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if inv.signal != nil {
		stdout.arm(max(1, inv.signalAfter), inv.signalOn)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	signalled := make(chan struct{})
	if inv.signal == nil {
		close(signalled)
	} else {
		go func() {
			defer close(signalled)
			if msg := inv.waitToSignal(srv, stdout, exited); msg != "" {
				t.Errorf("no %v sent: %s", inv.signal, msg)
				cmd.Process.Kill()
				return
			}
			cmd.Process.Signal(inv.signal)
			if inv.again != nil {
				if msg := inv.waitFor(inv.again, exited); msg != "" {
					t.Errorf("no second %v sent: %s", inv.signal, msg)
					cmd.Process.Kill()
					return
				}
				cmd.Process.Signal(inv.signal)
			}
		}()
	}
	err := cmd.Wait()
	close(exited)
	<-signalled
	code := exitOf(t, err)
	return checkNoKey(t, result{stdout: stdout.String(), stderr: stderr.String(), code: code})
}

// runCmd runs cmd to its end and returns what it wrote and its exit code; it fails t when
// cmd could not run at all.
func runCmd(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitOf(t, cmd.Run())
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// exitOf turns the error of a finished command into its exit code (0 for nil); any other
// error than an exit status fails t.
func exitOf(t *testing.T, err error) int {
	t.Helper()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// checkNoKey fails t if the run's stdout or stderr holds the API key.
func checkNoKey(t testing.TB, r result) result {
	t.Helper()
	for name, s := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		if strings.Contains(s, testKey) {
			t.Errorf("%s contains the API key:\n%s", name, s)
		}
	}
	return r
}

// waitToSignal waits until the run has reached the point to signal it (see invocation)
// and returns "", or says why it never did. It returns "" as well when the run ended first.
func (inv invocation) waitToSignal(srv *scripted.Server, stdout *eventWatcher, exited <-chan struct{}) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() {
		select {
		case <-exited:
			cancel()
		case <-ctx.Done():
		}
	}()
	ended := func() bool {
		select {
		case <-exited:
			return true
		default:
			return false
		}
	}
	if srv == nil {
		return "the invocation has no server to wait on"
	}
	if !srv.WaitRequests(ctx, max(1, inv.signalAfter)) {
		if ended() {
			return ""
		}
		return fmt.Sprintf("the server never received %d requests", max(1, inv.signalAfter))
	}
	if streamJSON(inv.args) {
		select {
		case <-stdout.reached:
		case <-ctx.Done():
			if ended() {
				return ""
			}
			return "stdout never showed the awaited event"
		}
	}
	for inv.ready != nil && !inv.ready() {
		select {
		case <-ctx.Done():
			if ended() {
				return ""
			}
			return "the ready condition never held"
		case <-time.After(10 * time.Millisecond):
		}
	}
	return ""
}

// waitFor polls cond until it holds and returns "", or says why it never did. It returns
// "" as well when the run ended first.
func (inv invocation) waitFor(cond func() bool, exited <-chan struct{}) string {
	deadline := time.After(time.Minute)
	for !cond() {
		select {
		case <-exited:
			return ""
		case <-deadline:
			return "the condition never held"
		case <-time.After(10 * time.Millisecond):
		}
	}
	return ""
}

// streamJSON reports whether args ask for NDJSON events on stdout.
func streamJSON(args []string) bool {
	for i, a := range args {
		if a == "--output-format=stream-json" || (a == "--output-format" && i+1 < len(args) && args[i+1] == "stream-json") {
			return true
		}
	}
	return false
}

// eventWatcher collects a run's stdout and reads it as NDJSON events while they arrive,
// so a test can act when an event appears rather than after a guessed delay.
type eventWatcher struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	scanned int // bytes of buf already split into lines

	armed   bool
	steps   int    // step_begin events to see first
	on      string // event type awaited after them; "" for text, thinking or tool_call
	reached chan struct{}
}

// arm makes reached close at the first event of type on after steps step_begin events.
func (w *eventWatcher) arm(steps int, on string) {
	w.armed, w.steps, w.on, w.reached = true, steps, on, make(chan struct{})
}

func (w *eventWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		rest := w.buf.Bytes()[w.scanned:]
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.scanned += i + 1
		if w.armed {
			w.see(rest[:i])
		}
	}
}

// see checks one stdout line against the awaited event.
func (w *eventWatcher) see(line []byte) {
	var e struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(line, &e) != nil {
		return
	}
	if e.Type == "step_begin" && w.steps > 0 {
		w.steps--
		return
	}
	match := e.Type == w.on
	if w.on == "" {
		match = e.Type == "text" || e.Type == "thinking" || e.Type == "tool_call"
	}
	if w.steps == 0 && match {
		close(w.reached)
		w.armed = false
	}
}

func (w *eventWatcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func ptr(s string) *string { return &s }

// events parses an NDJSON stdout, failing on any line that is not a JSON object or does
// not match docs/events.schema.json.
func events(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q: %v", sc.Text(), err)
		}
		if err := eventschema.Validate(sc.Bytes()); err != nil {
			t.Errorf("stdout line %d: %v\n%s", len(out)+1, err, sc.Text())
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		t.Fatalf("no events on stdout")
	}
	return out
}

// lastResult checks the stream ends with one result event matching the exit code.
func lastResult(t *testing.T, r result) map[string]any {
	t.Helper()
	evs := events(t, r.stdout)
	// A usage error and a busy session stop before the run starts: no init.
	if evs[0]["type"] != "init" && r.code != 2 && evs[len(evs)-1]["terminal_reason"] != "busy" {
		t.Errorf("first event = %v, want init", evs[0]["type"])
	}
	last := evs[len(evs)-1]
	if last["type"] != "result" {
		t.Fatalf("last event = %v, want result", last["type"])
	}
	if int(last["exit_code"].(float64)) != r.code {
		t.Errorf("result exit_code = %v, process exit = %d", last["exit_code"], r.code)
	}
	for _, e := range evs[:len(evs)-1] {
		if e["type"] == "result" {
			t.Errorf("result event before the end")
		}
	}
	return last
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		script   []scripted.Response
		args     []string
		env      map[string]string
		code     int
		reason   string
		kind     string
		stderr   string
		requests int
	}{
		{name: "completed", script: []scripted.Response{scripted.Text("All done.")}, code: 0, reason: "completed", requests: 1},
		{name: "provider 400", script: []scripted.Response{scripted.Status(400, scripted.ErrorBody("invalid_request_error", "context too long"))},
			code: 1, reason: "error", kind: "provider", stderr: "context too long", requests: 1},
		{name: "provider 404", script: []scripted.Response{scripted.Status(404, scripted.ErrorBody("not_found_error", "no such model"))},
			code: 1, reason: "error", kind: "provider", stderr: "check the base URL", requests: 1},
		{name: "max steps", script: []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{"command":"true"}`)).Forever()},
			args: []string{"--max-steps", "2"}, code: 3, reason: "max_steps", stderr: "step limit", requests: 2},
		{name: "unauthorized", script: scripted.Scenario(t, "unauthorized"), code: 5, reason: "auth", kind: "auth", stderr: "401", requests: 1},
		{name: "forbidden", script: []scripted.Response{scripted.Status(403, scripted.ErrorBody("permission_denied", "no access to model"))},
			code: 5, reason: "auth", kind: "auth", stderr: "no access", requests: 1},
		{name: "500 forever", script: scripted.Scenario(t, "server-error-forever"), args: []string{"--max-retries", "1"},
			code: 75, reason: "transient", kind: "transient", stderr: "500", requests: 2},
		{name: "429 forever", script: []scripted.Response{scripted.Status(429, scripted.ErrorBody("rate_limit", "slow down")).Header("Retry-After", "30").Forever()},
			code: 75, reason: "transient", kind: "transient", stderr: "429", requests: 3},
		{name: "stream cut forever", script: []scripted.Response{scripted.Reply(scripted.Say("half an ans"), scripted.Cut()).Forever()},
			code: 75, reason: "transient", kind: "transient", stderr: "complete", requests: 3},
		{name: "no model", env: map[string]string{"KIMI_MODEL_NAME": ""}, code: 2, stderr: "KIMI_MODEL_NAME"},
		{name: "no key", env: map[string]string{"KIMI_API_KEY": "", "KIMI_BASE_URL": "https://example.invalid/v1"}, code: 2, stderr: "KIMI_API_KEY"},
	}
	for _, tt := range tests {
		for _, format := range []string{"text", "stream-json"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				var srv *scripted.Server
				if tt.script != nil {
					srv = scripted.New(t, tt.script...)
				}
				args := append([]string{"--output-format", format, "-p", "do the task"}, tt.args...)
				// Every exit code once through the real binary's os.Exit, and once in process.
				r := kimi(t, srv, invocation{args: args, env: tt.env, srv: srv, proc: format == "text"})
				if r.code != tt.code {
					t.Fatalf("exit = %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.code, r.stdout, r.stderr)
				}
				if tt.stderr != "" && !strings.Contains(r.stderr, tt.stderr) {
					t.Errorf("stderr lacks %q:\n%s", tt.stderr, r.stderr)
				}
				if srv != nil && len(srv.Requests()) != tt.requests {
					t.Errorf("server got %d requests, want %d", len(srv.Requests()), tt.requests)
				}
				if format == "text" {
					if tt.code == 0 && r.stdout != "All done.\n" {
						t.Errorf("stdout = %q, want only the answer", r.stdout)
					}
					if tt.code != 0 && r.stdout != "" {
						t.Errorf("stdout of a failed run = %q, want nothing", r.stdout)
					}
					return
				}
				res := lastResult(t, r)
				if tt.reason != "" && res["terminal_reason"] != tt.reason {
					t.Errorf("terminal_reason = %v, want %s", res["terminal_reason"], tt.reason)
				}
				if tt.code != 0 {
					if res["status"] != "error" {
						t.Errorf("status = %v", res["status"])
					}
					e, _ := res["error"].(map[string]any)
					if e == nil || e["message"] == "" {
						t.Errorf("result has no error: %v", res)
					} else if tt.kind != "" && e["kind"] != tt.kind {
						t.Errorf("error kind = %v, want %s", e["kind"], tt.kind)
					}
				} else if res["final_text"] != "All done." || res["status"] != "success" {
					t.Errorf("result = %v", res)
				}
			})
		}
	}
}

func TestStreamJSONEvents(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Scenario(t, "tools-sequential")...)
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "list files"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	init := evs[0]
	if init["type"] != "init" || init["schema_version"] != 1.0 || init["model"] != "test-model" || init["session_id"] == "" {
		t.Errorf("init = %v", init)
	}
	if !strings.HasPrefix(init["base_url_host"].(string), "127.0.0.1:") {
		t.Errorf("base_url_host = %v", init["base_url_host"])
	}
	var types []string
	var text strings.Builder
	for _, e := range evs {
		types = append(types, e["type"].(string))
		if _, err := time.Parse(time.RFC3339Nano, e["ts"].(string)); err != nil {
			t.Errorf("ts %v: %v", e["ts"], err)
		}
		if e["type"] == "text" {
			text.WriteString(e["delta"].(string))
		}
		if e["type"] == "tool_result" {
			if e["name"] != "Shell" || e["is_error"] != false {
				t.Errorf("tool_result = %v", e)
			}
		}
	}
	for _, want := range []string{"turn_begin", "step_begin", "tool_call", "tool_result", "usage", "turn_end", "result"} {
		if !slices.Contains(types, want) {
			t.Errorf("no %s event in %v", want, types)
		}
	}
	res := lastResult(t, r)
	if res["final_text"] != "The directory holds go.mod and main.go." || res["steps"] != 2.0 || res["tool_calls"] != 1.0 {
		t.Errorf("result = %v", res)
	}
	if res["session_id"] != init["session_id"] {
		t.Errorf("session ids differ")
	}
	if !strings.Contains(text.String(), "The directory holds") {
		t.Errorf("text deltas = %q", text.String())
	}
}

func TestToolsChangeFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "greeting.txt"), []byte("hello world\n"), 0o644)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("ReadFile", `{"path":"greeting.txt"}`)),
		scripted.ToolCalls(
			scripted.Call("StrReplaceFile", `{"path":"greeting.txt","edit":{"old":"world","new":"CI"}}`),
			scripted.Call("WriteFile", `{"path":"new.txt","content":"created\n"}`),
		),
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"cat greeting.txt new.txt > both.txt && echo done"}`)),
		scripted.Text("Edited."),
	)
	r := kimi(t, srv, invocation{dir: dir, args: []string{"-p", "edit the files"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "both.txt"))
	if string(got) != "hello CI\ncreated\n" {
		t.Errorf("both.txt = %q", got)
	}
	// The model saw the file's content and the command's output.
	msgs := srv.Requests()[1].Messages()
	if c, _ := msgs[len(msgs)-1]["content"].(string); !strings.Contains(c, "hello world") {
		t.Errorf("ReadFile result = %q", c)
	}
	msgs = srv.Requests()[3].Messages()
	if c, _ := msgs[len(msgs)-1]["content"].(string); !strings.Contains(c, "done") {
		t.Errorf("Shell result = %q", c)
	}
	if r.stdout != "Edited.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "Shell") {
		t.Errorf("stderr shows no progress:\n%s", r.stderr)
	}
}

func TestTimeoutAndSignals(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	tests := []struct {
		name   string
		script []scripted.Response
		args   []string
		signal os.Signal
		code   int
		reason string
	}{
		{name: "timeout while streaming", script: []scripted.Response{scripted.Reply(scripted.Say("thinking about it"), scripted.Hang())},
			args: []string{"--timeout", "500ms"}, code: 124, reason: "timeout"},
		{name: "timeout in a tool", script: []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{"command":"sleep 30"}`))},
			args: []string{"--timeout", "500ms"}, code: 124, reason: "timeout"},
		{name: "SIGINT while streaming", script: []scripted.Response{scripted.Reply(scripted.Say("thinking"), scripted.Hang())},
			signal: os.Interrupt, code: 130, reason: "cancelled"},
		{name: "SIGTERM in a tool", script: []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{"command":"sleep 30"}`))},
			signal: syscall.SIGTERM, code: 143, reason: "cancelled"},
		// A lost terminal or ssh session (issue 25 #4): as SIGTERM, with its own code.
		{name: "SIGHUP in a tool", script: []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{"command":"sleep 30"}`))},
			signal: syscall.SIGHUP, code: 129, reason: "cancelled"},
		// Not the runtime's stack dump and exit 2 (the code for "fix the command").
		{name: "SIGQUIT while streaming", script: []scripted.Response{scripted.Reply(scripted.Say("thinking"), scripted.Hang())},
			signal: syscall.SIGQUIT, code: 131, reason: "cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, tt.script...)
			args := append([]string{"--output-format", "stream-json", "-p", "wait"}, tt.args...)
			r := kimi(t, srv, invocation{args: args, signal: tt.signal, srv: srv})
			if r.code != tt.code {
				t.Fatalf("exit = %d, want %d\n%s\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			res := lastResult(t, r)
			if res["terminal_reason"] != tt.reason {
				t.Errorf("terminal_reason = %v", res["terminal_reason"])
			}
		})
	}
}

func TestKeyNeverLeaks(t *testing.T) {
	t.Parallel()
	// A provider that quotes the key back in its errors, and a model that prints the
	// environment: the key must still appear nowhere (kimi() checks stdout and stderr).
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv := scripted.New(t,
				scripted.Status(500, scripted.ErrorBody("server_error", "upstream rejected key "+testKey)),
				scripted.ToolCalls(scripted.Call("Shell", `{"command":"env"}`)),
				scripted.Status(401, scripted.ErrorBody("invalid_authentication_error", "Incorrect API key provided: "+testKey)),
			)
			r := kimi(t, srv, invocation{args: []string{"--output-format", format, "-p", "leak it"}})
			if r.code != 5 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if !strings.Contains(r.stdout+r.stderr, "[redacted]") {
				t.Errorf("the key was not replaced where it was quoted:\n%s\n%s", r.stdout, r.stderr)
			}
		})
	}
}

// callArgs is a tool call's arguments as JSON.
func callArgs(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

//go:build unix

package run_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// gatedShell is a Shell call that prints "hello\n" and then waits until something is
// written to the FIFO gate in its work dir: it runs exactly as long as the test wants.
const gatedShell = `{"command":"printf 'hello\\n'; read line < gate; echo released"}`

// runGated runs the binary in dir with args and watches the lines of its stdout (or
// stderr); at the first line for which open holds, it opens the gate, letting the
// command end. It returns what the run wrote and its exit code. A run that never shows
// such a line ends at its --timeout and fails the test.
func runGated(t *testing.T, srv *scripted.Server, dir string, watchStderr bool, open func(line string) bool, args ...string) result {
	t.Helper()
	if err := syscall.Mkfifo(filepath.Join(dir, "gate"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, append([]string{"-w", dir, "--timeout", "60s"}, args...)...)
	cmd.Env = append(coverEnv(), "PATH="+os.Getenv("PATH"), "HOME="+t.TempDir(), "KIMI_API_KEY="+testKey,
		"KIMI_MODEL_NAME=test-model", "KIMI_BASE_URL="+srv.URL(), "KIMI_RUN_NO_ROOT_WARNING=1")
	var watched io.Reader
	var stdout, stderr strings.Builder
	var err error
	if watchStderr {
		cmd.Stdout = &stdout
		watched, err = cmd.StderrPipe()
	} else {
		cmd.Stderr = &stderr
		watched, err = cmd.StdoutPipe()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	opened := false
	sc := bufio.NewScanner(watched)
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		if !opened && open(sc.Text()) {
			opened = true
			// Opening the FIFO for writing releases the command's read.
			if err := os.WriteFile(filepath.Join(dir, "gate"), []byte("go\n"), 0o600); err != nil {
				t.Error(err)
			}
		}
	}
	code := exitOf(t, cmd.Wait())
	if watchStderr {
		stderr.WriteString(seen.String())
	} else {
		stdout.WriteString(seen.String())
	}
	if !opened {
		t.Errorf("the awaited line never came; exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	return checkNoKey(t, result{stdout: stdout.String(), stderr: stderr.String(), code: code})
}

// TestHeartbeatWhileACommandRuns (issue 32 #2): while a Shell command runs, tool_progress
// events report it with the output it has printed so far, all before its tool_result. The
// command waits on a gate the test opens only once such an event has shown its output, so
// nothing here depends on how fast anything is.
func TestHeartbeatWhileACommandRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := scripted.New(t, scripted.ToolCalls(scripted.CallID("call_gated", "Shell", gatedShell)), scripted.Text("Done."))
	r := runGated(t, srv, dir, false, func(line string) bool {
		var e map[string]any
		return json.Unmarshal([]byte(line), &e) == nil && e["type"] == "tool_progress" && e["output_bytes"] == 6.0
	}, "--output-format", "stream-json", "--heartbeat", "20ms", "-p", "run it")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	progress, resultAt := 0, -1
	for i, e := range evs {
		switch e["type"] {
		case "tool_progress":
			progress++
			if e["id"] != "call_gated" || e["name"] != "Shell" || e["step"] != 1.0 {
				t.Errorf("tool_progress = %v", e)
			}
			if resultAt >= 0 {
				t.Errorf("tool_progress after the call's tool_result: %v", e)
			}
			if e["since_output_ms"].(float64) > e["elapsed_ms"].(float64) {
				t.Errorf("silent for longer than it ran: %v", e)
			}
		case "tool_result":
			resultAt = i
		}
	}
	if progress == 0 || resultAt < 0 {
		t.Errorf("%d tool_progress events, tool_result at %d", progress, resultAt)
	}
}

// TestHeartbeatInTextMode: the same heartbeat is a short line on stderr; stdout stays the
// answer alone.
func TestHeartbeatInTextMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", gatedShell)), scripted.Text("Done."))
	r := runGated(t, srv, dir, true, func(line string) bool {
		return strings.Contains(line, "still running after") && strings.Contains(line, "6 B of output")
	}, "--heartbeat", "20ms", "-p", "run it")
	if r.code != 0 || r.stdout != "Done.\n" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "Shell  printf 'hello\\n'; read line < gate; e... still running after") {
		t.Errorf("the heartbeat line does not name the command:\n%s", r.stderr)
	}
}

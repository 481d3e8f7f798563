package run_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// started is a kimi-run process the test talks to while it runs.
type started struct {
	cmd    *exec.Cmd
	stdout <-chan string // lines, closed at EOF
	stderr <-chan string
}

// startKimi starts the binary against srv like kimi() does, without waiting for it.
func startKimi(t *testing.T, srv *scripted.Server, dir string, args ...string) *started {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"-w", dir, "--retry-base-delay", "0"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "KIMI_API_KEY=" + testKey,
		"KIMI_MODEL_NAME=test-model", "KIMI_BASE_URL=" + srv.URL()}
	cmd.Env = append(cmd.Env, coverEnv()...)
	lines := func(r io.Reader) <-chan string {
		c := make(chan string, 1000)
		go func() {
			defer close(c)
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				c <- sc.Text()
			}
		}()
		return c
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errp, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return &started{cmd: cmd, stdout: lines(out), stderr: lines(errp)}
}

// waitLine reads lines until one contains want; it fails the test if the stream ends first
// (a generous bound only guards against a hung test, it is not a timed assertion).
func waitLine(t *testing.T, lines <-chan string, want string) string {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stream ended without a line containing %q", want)
			}
			if strings.Contains(l, want) {
				return l
			}
		case <-timeout:
			t.Fatalf("no line containing %q", want)
		}
	}
}

// exitCode waits for the process, draining its output, and returns its exit code.
func (s *started) exitCode(t *testing.T) int {
	t.Helper()
	for range s.stdout {
	}
	for range s.stderr {
	}
	return exitOf(t, s.cmd.Wait())
}

// TestOneRunPerSession: a second run on a session in use fails fast with exit 75 (busy: try
// again later, issue 21 #4) and a clear message, or with --session-wait waits for the first to end, so records never interleave.
func TestOneRunPerSession(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	work, sessions := t.TempDir(), t.TempDir()
	first := scripted.New(t, scripted.Reply(scripted.Say("working on it"), scripted.Hang()))
	a := startKimi(t, first, work, "--session-dir", sessions, "--session", "shared", "--output-format", "stream-json", "-p", "first task")
	waitLine(t, a.stdout, `"type":"text"`) // a holds the session and is mid-reply

	for _, format := range []string{"text", "stream-json"} {
		second := scripted.New(t)
		r := kimi(t, second, invocation{dir: work, args: sessionArgs(sessions, "--output-format", format, "--session", "shared", "-p", "second task")})
		if r.code != 75 {
			t.Fatalf("%s: second run exit %d, want 75\n%s\n%s", format, r.code, r.stdout, r.stderr)
		}
		if format == "stream-json" {
			res := lastResult(t, r)
			if res["terminal_reason"] != "busy" || res["error"].(map[string]any)["retryable"] != true {
				t.Errorf("result = %v, want terminal_reason busy, retryable", res)
			}
		} else if !strings.Contains(r.stderr, "in use by another run") {
			t.Errorf("text summary does not say busy:\n%s", r.stderr)
		}
		if !strings.Contains(r.stderr, "in use") || !strings.Contains(r.stderr, "--session-wait") {
			t.Errorf("%s: stderr does not say the session is in use and how to wait:\n%s", format, r.stderr)
		}
		if n := len(second.Requests()); n != 0 {
			t.Errorf("%s: the refused run made %d model calls", format, n)
		}
	}

	third := scripted.New(t, scripted.Text("second answer"))
	c := startKimi(t, third, work, "--session-dir", sessions, "--session", "shared", "--session-wait", "10m", "-p", "second task")
	waitLine(t, c.stderr, "waiting")
	if n := len(third.Requests()); n != 0 {
		t.Fatalf("the waiting run made %d model calls while the session was in use", n)
	}
	a.cmd.Process.Signal(syscall.SIGTERM)
	if code := a.exitCode(t); code != 143 {
		t.Errorf("first run exit %d, want 143", code)
	}
	if code := c.exitCode(t); code != 0 {
		t.Fatalf("waiting run exit %d, want 0", code)
	}
	// The second run resumed what the first left: one coherent history.
	var users []string
	for _, m := range third.Requests()[0].Messages() {
		if m["role"] == "user" {
			users = append(users, m["content"].(string))
		}
	}
	if strings.Join(users, "|") != "first task|second task" {
		t.Errorf("resumed user messages = %q", users)
	}
	data, err := os.ReadFile(filepath.Join(sessions, "shared", "context.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("context.jsonl line %d is not JSON: %q", i+1, line)
		}
	}
}

//go:build linux

package run_test

// Issue 25 #2 names files, but the inputs a run reads from outside also include what its
// children write (a Shell command's output, a hook's stdout) and its own stdin. Each is
// given here what never ends — an endless stream, one that never starts — as a hostile
// model or a careless pipeline would: the run ends with the right code within --timeout
// plus the stopper's grace, its last line is the result, and its memory stays bounded.

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

func TestEndlessChildOutputIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary on endless streams")
	}
	shell := func(command string) scripted.Response {
		return scripted.ToolCalls(scripted.CallID("flood", "Shell", fmt.Sprintf(`{"command":%q}`, command)))
	}
	hook := func(timeout int) string {
		return fmt.Sprintf("[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"Shell\"\ncommand = \"cat /dev/zero\"\ntimeout = %d\n", timeout)
	}
	for _, tt := range []struct {
		name  string
		reply scripted.Response
		hooks string // config.toml text, when set
		code  int
		// result, when set, must be in what the model was sent for the Shell call, and
		// that must stay small.
		result string
	}{
		// A command whose output never ends meets the run's clock.
		{name: "Shell cat /dev/zero", reply: shell("cat /dev/zero"), code: 124},
		// One whose output is larger than the memory bound ends; the model gets
		// the head and the tail.
		{name: "Shell 600 MB", reply: shell("head -c 600000000 /dev/zero; echo; echo the end"), code: 0, result: "the end"},
		// A hook whose stdout never ends is killed at its own timeout; the call goes on.
		{name: "hook cat /dev/zero, hook timeout", reply: shell("echo after the hook"), hooks: hook(2), code: 0, result: "after the hook"},
		// One whose timeout is later than the run's meets the run's clock.
		{name: "hook cat /dev/zero, run timeout", reply: shell("echo after the hook"), hooks: hook(600), code: 124},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, tt.reply, scripted.Text("done"))
			// A run meant to end by itself gets time for a loaded machine; one meant to meet
			// the clock, a short one.
			timeout := "6s"
			if tt.code == 0 {
				timeout = "80s"
			}
			args := []string{"--timeout", timeout, "--output-format", "stream-json", "-p", "go"}
			if tt.hooks != "" {
				args = append(hookConfig(t, tt.hooks), args...)
			}
			r := runBounded(t, srv, t.TempDir(), args, nil)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\nstderr: %s", r.code, tt.code, r.stderr)
			}
			if r.rss > boundedRSS {
				t.Errorf("peak RSS %d MiB, more than %d MiB", r.rss>>20, boundedRSS>>20)
			}
			if last := lastEvent(t, r.stdout); last["type"] != "result" || last["exit_code"] != float64(r.code) {
				t.Errorf("last line %v, want the result of exit %d", last, r.code)
			}
			if tt.result == "" {
				return
			}
			if len(srv.Requests()) < 2 {
				t.Fatalf("the model was not asked again after the call\nstderr: %s", r.stderr)
			}
			out := lastToolOutput(t, srv, 1)
			if !strings.Contains(out, tt.result) || len(out) > 1<<20 {
				t.Errorf("the model got %d bytes for the call, want at most 1 MiB holding %q", len(out), tt.result)
			}
		})
	}
}

// The prompt on stdin: a pipe that never ends is refused at its cap, one whose writer never
// writes (nor closes) meets --timeout, and a FIFO given as stdin likewise.
func TestEndlessStdinIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary on endless streams")
	}
	for _, tt := range []struct {
		name   string
		source func(t *testing.T) *os.File // the read end given as stdin
		code   int
	}{
		{name: "endless pipe", code: 2, source: func(t *testing.T) *os.File {
			// cat /dev/zero writes until the run closes its end.
			return pipeFrom(t, exec.Command("cat", "/dev/zero"))
		}},
		{name: "silent pipe", code: 124, source: func(t *testing.T) *os.File {
			rd, wr, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { wr.Close() })
			return rd
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("done"))
			r := runBoundedStdin(t, srv, tt.source(t), []string{"--timeout", "6s", "--output-format", "stream-json", "-p", "go"})
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\nstderr: %s", r.code, tt.code, r.stderr)
			}
			if r.rss > boundedRSS {
				t.Errorf("peak RSS %d MiB, more than %d MiB", r.rss>>20, boundedRSS>>20)
			}
			if last := lastEvent(t, r.stdout); last["type"] != "result" || last["exit_code"] != float64(r.code) {
				t.Errorf("last line %v, want the result of exit %d", last, r.code)
			}
		})
	}
}

// pipeFrom starts cmd writing into a pipe and returns the pipe's read end; cmd is ended
// at cleanup.
func pipeFrom(t *testing.T, cmd *exec.Cmd) *os.File {
	t.Helper()
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = wr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wr.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	return rd
}

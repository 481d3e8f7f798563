//go:build unix

package run_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestBackgroundProcessesEndWithTheRun: a server a Shell command starts in the background
// (and forgets) must not outlive the run, on success as on failure, unless
// --keep-background says so.
func TestBackgroundProcessesEndWithTheRun(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	for _, tt := range []struct {
		name string
		last scripted.Response
		args []string
		code int
		keep bool
	}{
		{name: "success", last: scripted.Text("Started it."), code: 0},
		{name: "failure", last: scripted.Status(400, scripted.ErrorBody("invalid_request_error", "no")), code: 1},
		{name: "step limit", last: scripted.ToolCalls(scripted.Call("SetTodoList", `{}`)), args: []string{"--max-steps", "2"}, code: 3},
		{name: "kept", last: scripted.Text("Started it."), args: []string{"--keep-background"}, code: 0, keep: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			// Two processes: one that ignores SIGTERM must be killed too.
			cmd := `sleep 300 & echo $! > bg.pid; (trap '' TERM; sleep 300) & echo $! > stubborn.pid`
			srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":`+jsonString(cmd)+`}`)), tt.last)
			r := kimi(t, srv, invocation{dir: dir, args: append([]string{"-p", "start the server"}, tt.args...)})
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			if said := strings.Contains(r.stderr, "left running in the background"); said == tt.keep {
				t.Errorf("stderr says it stopped background processes: %v, want %v\n%s", said, !tt.keep, r.stderr)
			}
			for _, f := range []string{"bg.pid", "stubborn.pid"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				if pid <= 0 {
					t.Fatalf("%s = %q", f, b)
				}
				gone := testkit.ProcessGone(pid)
				if tt.keep {
					if !gone {
						syscall.Kill(pid, syscall.SIGKILL)
					}
					if gone {
						t.Errorf("%s (%d) was ended despite --keep-background", f, pid)
					}
				} else if !gone {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("%s (%d) outlived the run", f, pid)
				}
			}
		})
	}
}

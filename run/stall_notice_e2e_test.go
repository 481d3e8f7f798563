package run_test

import (
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestStalledServerIsAnnounced: a server that goes silent holds a job for up to
// --stream-idle-timeout per attempt; the CI log says so long before that.
func TestStalledServerIsAnnounced(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Reply(scripted.Say("let me think"), scripted.Hang()))
			p := startKimi(t, srv, t.TempDir(), "--no-session", "--output-format", format, "--stall-notice", "100ms", "--stream-idle-timeout", "10m", "-p", "x")
			line := waitLine(t, p.stderr, "no data from the model")
			for _, want := range []string{"--stream-idle-timeout", "10m0s", "--timeout"} {
				if !strings.Contains(line, want) {
					t.Errorf("notice %q lacks %q", line, want)
				}
			}
			p.cmd.Process.Signal(syscall.SIGTERM)
			if code := p.exitCode(t); code != 143 {
				t.Errorf("exit %d, want 143", code)
			}
		})
	}
}

// TestToolsAreNotAStall: a long tool call is not a silent server. The tool runs for twice
// the notice period; the check is on the events between the tool's call and its result, so
// a genuine notice for a model call slowed by a loaded machine does not count against it.
func TestToolsAreNotAStall(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.ToolCalls(scripted.CallID("sleep", "Shell", `{"command":"sleep 2"}`)), scripted.Text("done"))
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--stall-notice", "1s", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	running := false
	for _, e := range events(t, r.stdout) {
		switch e["type"] {
		case "tool_call":
			running = e["id"] == "sleep"
		case "tool_result":
			running = false
		case "warning":
			if msg, _ := e["message"].(string); running && strings.Contains(msg, "no data from the model") {
				t.Errorf("a running tool was reported as a stalled server: %q", msg)
			}
		}
	}
}

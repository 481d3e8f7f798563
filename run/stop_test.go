package run

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/config"
)

// syncBuffer is a stream the stopper and the run write from different goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// blockedWriter is a stdout nobody reads: every write waits for ever.
type blockedWriter struct{ entered chan struct{} }

func (w blockedWriter) Write([]byte) (int, error) {
	close(w.entered)
	select {}
}

// testStopper is a stopper over out (stdout) and a buffer for stderr, with short waits,
// whose exits arrive on the returned channel.
func testStopper(t *testing.T, format string, out interface{ Write([]byte) (int, error) }) (*stopper, *syncBuffer, chan int) {
	t.Helper()
	exits := make(chan int, 2)
	var errOut syncBuffer
	f := &config.Flags{OutputFormat: format, LogLevel: "info"}
	s, _ := newStopper(f, IO{Stdout: out, Stderr: &errOut, Exit: func(code int) { exits <- code }})
	// The grace is short; the wait for a write is long, as a loaded machine may need it.
	s.grace, s.writeWait = 10*time.Millisecond, time.Minute
	t.Cleanup(s.close)
	return s, &errOut, exits
}

// lastLine decodes the last NDJSON line of out.
func lastLine(t *testing.T, out string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	return m
}

// A run stuck past its deadline (its goroutine never comes back to write the result) is
// ended by the stopper with 124 and a result line it writes itself; whatever the stuck
// run writes after that is dropped.
func TestStopperEndsAStuckRun(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	s, errOut, exits := testStopper(t, "stream-json", &out)
	s.arm(nil, 10*time.Millisecond)
	if code := <-exits; code != int(ExitTimeout) {
		t.Fatalf("exit %d, want 124", code)
	}
	m := lastLine(t, out.String())
	if m["type"] != "result" || m["exit_code"] != float64(124) || m["terminal_reason"] != "timeout" {
		t.Fatalf("last line %v, want the timeout's result", m)
	}
	if !strings.Contains(errOut.String(), "--timeout") {
		t.Errorf("stderr does not say why: %q", errOut.String())
	}
	// The run's own result, should its goroutine come back now, is not written again.
	s.result(ExitError, func() { s.stdout.Write([]byte("{\"type\":\"result\"}\n")) })
	s.stdout.Write([]byte("late\n"))
	if got := strings.Count(out.String(), "\n"); got != 1 {
		t.Fatalf("%d lines after the stopper's result, want 1:\n%s", got, out.String())
	}
}

// A run that wrote its result and then got stuck (closing a server, say) ends with the
// code of the result it wrote, and no second result.
func TestStopperKeepsTheRunsResult(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	s, _, exits := testStopper(t, "stream-json", &out)
	s.result(ExitBudget, func() { s.stdout.Write([]byte(`{"type":"result","exit_code":4}` + "\n")) })
	s.arm(nil, 10*time.Millisecond)
	if code := <-exits; code != int(ExitBudget) {
		t.Fatalf("exit %d, want the result's 4", code)
	}
	if n := strings.Count(out.String(), `"type":"result"`); n != 1 {
		t.Fatalf("%d results:\n%s", n, out.String())
	}
}

// stdout that takes nothing (its reader stopped reading while a write was under way)
// cannot hold the exit: the process ends anyway, after a bounded wait, with the code.
func TestStopperExitsWhenStdoutIsStuck(t *testing.T) {
	t.Parallel()
	w := blockedWriter{entered: make(chan struct{})}
	s, _, exits := testStopper(t, "stream-json", w)
	s.writeWait = 50 * time.Millisecond
	go s.stdout.Write([]byte("an event\n"))
	<-w.entered
	s.arm(nil, 10*time.Millisecond)
	if code := <-exits; code != int(ExitTimeout) {
		t.Fatalf("exit %d, want 124", code)
	}
}

// The second signal ends the run at once, with the result of the first.
func TestStopperSecondSignal(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	s, _, exits := testStopper(t, "stream-json", &out)
	s.grace = time.Hour
	sigs := make(chan os.Signal, 2)
	ctx := s.arm(sigs, 0)
	sigs <- syscall.SIGHUP
	<-ctx.Done()
	sigs <- syscall.SIGTERM
	if code := <-exits; code != int(ExitHangup) {
		t.Fatalf("exit %d, want 129 (the first signal's)", code)
	}
	if m := lastLine(t, out.String()); m["exit_code"] != float64(129) || m["terminal_reason"] != "cancelled" {
		t.Fatalf("last line %v", m)
	}
}

// In text mode the stopper's result is the summary line on stderr, as finish writes it.
func TestStopperTextMode(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	s, errOut, exits := testStopper(t, "text", &out)
	s.arm(nil, 10*time.Millisecond)
	<-exits
	if out.String() != "" || !strings.Contains(errOut.String(), "exit_code=124") {
		t.Fatalf("stdout %q, stderr %q", out.String(), errOut.String())
	}
}

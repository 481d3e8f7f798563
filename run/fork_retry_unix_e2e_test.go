//go:build unix

package run_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/session"
)

// TestForkRetriedAfterAKill: `--fork-session src -S f1` killed and run again as it was
// continues f1 (a retried job goes on), while a session f1 that is not a fork of src is
// still refused.
func TestForkRetriedAfterAKill(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	if r := kimi(t, scripted.New(t, scripted.Text("Noted: the number is 7.")), invocation{dir: work,
		args: sessionArgs(sessions, "-S", "src", "-p", "remember the number 7")}); r.code != 0 {
		t.Fatalf("src: exit %d\n%s", r.code, r.stderr)
	}
	fork := sessionArgs(sessions, "--output-format", "stream-json", "--fork-session", "src", "-S", "f1", "-p", "which number?")
	killed := kimi(t, scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo ran >> side.txt; sleep 60"}`))),
		invocation{dir: work, args: fork, signal: syscall.SIGKILL, signalAfter: 1, signalOn: "tool_call", ready: hasLine(work, "ran")})
	if killed.code == 0 {
		t.Fatalf("the fork was not killed\n%s", killed.stderr)
	}
	srv := scripted.New(t, scripted.Text("It was 7."))
	r := kimi(t, srv, invocation{dir: work, args: fork})
	if r.code != 0 {
		t.Fatalf("the same command again: exit %d\n%s", r.code, r.stderr)
	}
	if init := events(t, r.stdout)[0]; init["session_id"] != "f1" || init["forked_from"] != "src" {
		t.Errorf("init = %v", init)
	}
	if !strings.Contains(r.stderr, "this run continues it") {
		t.Errorf("stderr does not say the fork is continued:\n%s", r.stderr)
	}
	if got := strings.Join(contents(srv, 0), "\n"); !strings.Contains(got, "remember the number 7") || !strings.Contains(got, "which number?") {
		t.Errorf("the continued fork's request:\n%s", got)
	}

	if r := kimi(t, scripted.New(t, scripted.Text("ok")), invocation{dir: work, args: sessionArgs(sessions, "-S", "other", "-p", "hi")}); r.code != 0 {
		t.Fatalf("other: exit %d\n%s", r.code, r.stderr)
	}
	r = kimi(t, nil, invocation{dir: work, args: sessionArgs(sessions, "--fork-session", "src", "-S", "other", "-p", "x")})
	if r.code != 2 || !strings.Contains(r.stderr, "session other exists already, and is not a fork of src") {
		t.Errorf("a fork into another session: exit %d\n%s", r.code, r.stderr)
	}
}

// TestForksOfOneSessionAtOnce: a fork copies its source under a shared lock, so forks of
// one session do not fail each other as busy (exit 75), while a run that writes the source
// still waits for them.
func TestForksOfOneSessionAtOnce(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	if r := kimi(t, scripted.New(t, scripted.Text("Noted.")), invocation{dir: work, args: sessionArgs(sessions, "-S", "src", "-p", "remember 7")}); r.code != 0 {
		t.Fatalf("src: exit %d\n%s", r.code, r.stderr)
	}
	// Another fork is copying src.
	held, err := session.TakeSharedLock(context.Background(), filepath.Join(sessions, "src"), "src", 0, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if r := kimi(t, scripted.New(t, scripted.Text("7.")), invocation{dir: work, args: sessionArgs(sessions, "--fork-session", "src", "-p", "which?")}); r.code != 0 {
		t.Errorf("a fork while another copies src: exit %d\n%s", r.code, r.stderr)
	}
	if r := kimi(t, nil, invocation{dir: work, args: sessionArgs(sessions, "-S", "src", "-p", "more")}); r.code != 75 {
		t.Errorf("a run of src while a fork copies it: exit %d, want 75\n%s", r.code, r.stderr)
	}
	held.Unlock()

	var wg sync.WaitGroup
	codes := make([]int, 5)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := kimi(t, scripted.New(t, scripted.Text("7.")), invocation{dir: work, proc: true, args: sessionArgs(sessions, "--fork-session", "src", "-p", "which?")})
			codes[i] = r.code
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Errorf("fork %d of five at once: exit %d", i, c)
		}
	}
}

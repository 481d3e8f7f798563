//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

// testShell returns a Shell tool with a short kill grace, so tests of stubborn processes
// do not wait the full production grace.
func testShell(dir string) Tool {
	s := &shell{workDir: dir, grace: 300 * time.Millisecond, outMax: 40_000}
	return New("Shell", shellDescription, shellFacts, s.run)
}

func TestShell(t *testing.T) {
	dir := t.TempDir()
	tool := NewShell(Env{WorkDir: dir})
	tests := []struct {
		name    string
		args    any
		want    string // exact output, when set
		has     []string
		isError bool
	}{
		{name: "success", args: map[string]any{"command": "echo hello"}, want: "Command succeeded (exit code 0).\nhello"},
		{name: "exit status", args: map[string]any{"command": "echo oops; exit 3"}, want: "Command failed (exit code 3).\noops", isError: true},
		{name: "stderr merged in order", args: map[string]any{"command": "echo out1; echo err1 >&2; echo out2; echo err2 >&2"},
			want: "Command succeeded (exit code 0).\nout1\nerr1\nout2\nerr2"},
		{name: "no output", args: map[string]any{"command": "true"}, want: "Command succeeded (exit code 0).\n(no output)"},
		{name: "stdin is at EOF", args: map[string]any{"command": "cat; read x || echo eof"}, want: "Command succeeded (exit code 0).\neof"},
		{name: "runs in the work dir", args: map[string]any{"command": "pwd -P"}, has: []string{evalDir(t, dir)}},
		{name: "non-interactive environment", args: map[string]any{"command": `echo "$GIT_TERMINAL_PROMPT $PAGER $GIT_PAGER $DEBIAN_FRONTEND"`},
			has: []string{"0 cat cat noninteractive"}},
		{name: "no controlling terminal", args: map[string]any{"command": "exec 3</dev/tty && echo has-tty || echo no-tty"}, has: []string{"no-tty"}},
		{name: "bash features", args: map[string]any{"command": `a=(x y); echo "${#a[@]}"`}, has: []string{"\n2"}},
		{name: "killed by a signal", args: map[string]any{"command": "kill -KILL $$"}, has: []string{"Command was killed (signal: killed)"}, isError: true},
		{name: "timeout too large", args: map[string]any{"command": "true", "timeout": 301}, has: []string{"between 1 and 300"}, isError: true},
		{name: "negative timeout", args: map[string]any{"command": "true", "timeout": -1}, isError: true},
		{name: "empty command", args: map[string]any{"command": "  "}, has: []string{"empty"}, isError: true},
		{name: "missing command", args: map[string]any{}, has: []string{`"command"`}, isError: true},
		{name: "timeout of wrong type", args: `{"command":"true","timeout":"soon"}`, isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustCall(t, tool, tt.args)
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v, want %v: %s", res.IsError, tt.isError, res.Output)
			}
			if tt.want != "" && res.Output != tt.want {
				t.Errorf("output = %q, want %q", res.Output, tt.want)
			}
			for _, s := range tt.has {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output %q lacks %q", res.Output, s)
				}
			}
		})
	}
}

func TestShellTimeoutKillsTheGroup(t *testing.T) {
	tests := []struct {
		name    string
		command string
	}{
		{name: "foreground sleep", command: "sleep 30 & echo $! > pid; wait"},
		{name: "background grandchild", command: "(sleep 30 & echo $! > pid); sleep 30"},
		{name: "grandchild holding the output pipe", command: "(sleep 30 & echo $! > pid) ; echo started; sleep 30"},
		{name: "everything ignores SIGTERM", command: "trap '' TERM; sleep 30 & echo $! > pid; wait; wait"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			// 3 s, not 1: on a loaded machine bash may not have written the pid within a second.
			res := mustCall(t, testShell(dir), map[string]any{"command": tt.command, "timeout": 3})
			if !res.IsError || !strings.HasPrefix(res.Output, "Command killed by timeout after 3s.") {
				t.Fatalf("got %v %q", res.IsError, res.Output)
			}
			testkit.WaitGone(t, testkit.ReadPID(t, filepath.Join(dir, "pid")))
		})
	}
}

func TestShellCancelKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel once the grandchild is running, as a SIGINT to kimi-run would.
		for {
			if _, err := os.Stat(pidFile); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	args, _ := json.Marshal(map[string]any{"command": "(sleep 30 & echo $! > pid.tmp; mv pid.tmp pid); sleep 30", "timeout": 300})
	res, err := testShell(dir).Run(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.HasPrefix(res.Output, "Command cancelled") {
		t.Fatalf("got %v %q", res.IsError, res.Output)
	}
	testkit.WaitGone(t, testkit.ReadPID(t, pidFile))
}

func TestShellLeavesBackgroundProcessesAfterNormalExit(t *testing.T) {
	dir := t.TempDir()
	res := mustCall(t, testShell(dir), map[string]any{"command": "sleep 30 & echo $! > pid; echo done"})
	pid := testkit.ReadPID(t, filepath.Join(dir, "pid"))
	start := testkit.Started(pid)
	t.Cleanup(func() { testkit.Kill(pid, start, false) })
	if res.IsError || !strings.Contains(res.Output, "kept the output open") || !strings.HasSuffix(res.Output, "\ndone") {
		t.Fatalf("got %v %q", res.IsError, res.Output)
	}
	if testkit.ProcessGone(pid) {
		t.Errorf("the background process %d was killed after a normal exit", pid)
	}
}

func TestShellGroupsEndWhatCommandsLeftBehind(t *testing.T) {
	dir := t.TempDir()
	groups := &ShellGroups{}
	s := &shell{workDir: dir, grace: 300 * time.Millisecond, outMax: 40_000, groups: groups}
	tool := New("Shell", shellDescription, shellFacts, s.run)
	mustCall(t, tool, map[string]any{"command": "sleep 30 & echo $! > a; (trap '' TERM; sleep 30) & echo $! > b"})
	mustCall(t, tool, map[string]any{"command": "echo nothing left"})
	a, b := testkit.ReadPID(t, filepath.Join(dir, "a")), testkit.ReadPID(t, filepath.Join(dir, "b"))
	startA, startB := testkit.Started(a), testkit.Started(b)
	t.Cleanup(func() { testkit.Kill(a, startA, false); testkit.Kill(b, startB, false) })
	if testkit.ProcessGone(a) || testkit.ProcessGone(b) {
		t.Fatalf("background processes ended before End")
	}
	var warned []string
	warn := func(msg string) { warned = append(warned, msg) }
	groups.End(300*time.Millisecond, warn)
	if want := "stopped the processes that 1 Shell command left running in the background (--keep-background keeps them)"; len(warned) != 1 || warned[0] != want {
		t.Errorf("End warned %q, want %q", warned, want)
	}
	if !testkit.ProcessGone(a) || !testkit.ProcessGone(b) {
		t.Errorf("End left %d (gone %v) or %d, which ignores SIGTERM (gone %v)", a, testkit.ProcessGone(a), b, testkit.ProcessGone(b))
	}
	if groups.End(time.Second, warn); len(warned) != 1 {
		t.Errorf("a second End found groups: %q", warned[1:])
	}
}

func TestShellHugeOutputIsBounded(t *testing.T) {
	tests := []struct {
		name, command string
		has           []string
	}{
		{name: "50 MB on one line", command: "head -c 50000000 /dev/zero | tr '\\0' a",
			has: []string{"[... 49960000 bytes of output omitted ...]"}},
		{name: "many lines keep head and tail", command: "seq 1 1000000; echo LAST-LINE >&2",
			has: []string{"succeeded (exit code 0).\n1\n2\n3\n", "bytes of output omitted", "999999\n1000000\nLAST-LINE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustCall(t, NewShell(Env{WorkDir: t.TempDir()}), map[string]any{"command": tt.command})
			if res.IsError {
				t.Fatal(abbrev(res.Output))
			}
			if len(res.Output) > (Settings{}).withDefaults().ShellOutputBytes+200 {
				t.Errorf("output is %d bytes, want it bounded", len(res.Output))
			}
			for _, s := range tt.has {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output lacks %q: %s", s, abbrev(res.Output))
				}
			}
			capped := Cap(res.Output)
			checkCapped(t, capped)
			if n := utf8.RuneCountInString(capped); n > MaxOutputChars {
				t.Errorf("capped output has %d characters", n)
			}
		})
	}
}

// evalDir returns dir with symbolic links resolved, as pwd -P prints it.
func evalDir(t *testing.T, dir string) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestShellCountsOutputOnTheCallsMeter: what a command writes to stdout and stderr is
// counted on its call's meter as it arrives (the heartbeat reads it), and the order of the
// merged output is kept.
func TestShellCountsOutputOnTheCallsMeter(t *testing.T) {
	var clock time.Time
	m := NewOutputMeter(func() time.Time { clock = clock.Add(time.Second); return clock })
	args, _ := json.Marshal(map[string]any{"command": "printf abc; printf de >&2; printf f"})
	res, err := NewShell(Env{WorkDir: t.TempDir()}).Run(WithOutputMeter(context.Background(), m), args)
	if err != nil || res.IsError || !strings.HasSuffix(res.Output, "\nabcdef") {
		t.Fatalf("result %+v, err %v", res, err)
	}
	if n, last := m.Read(); n != 6 || last.IsZero() {
		t.Errorf("meter counted %d bytes (last at %v), want 6", n, last)
	}
	// Without a meter in the context nothing is counted and nothing breaks.
	if res, err := NewShell(Env{WorkDir: t.TempDir()}).Run(context.Background(), args); err != nil || res.IsError {
		t.Errorf("without a meter: %+v, %v", res, err)
	}
}

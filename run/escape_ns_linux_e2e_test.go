//go:build linux

package run_test

// The escape suite, continued: what the commands' namespaces close where the machine
// allows them (a process namespace with a /proc of its own, read-only mounts outside the
// writable dirs), and the warning and the old behaviour where they are refused or turned
// off (KIMI_RUN_NS=off).

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// nsAttempts is a command that lists the processes it sees, looks for the outside
// process's secret in every environ and its marker in every cmdline, names it by its
// number (kill -0), and changes the mode
// and the times of a file outside the writable dirs, and of one inside.
func nsAttempts(outside, inside string, sleeper int) string {
	try := func(name, cmd string) string {
		return fmt.Sprintf(`if out=$(%s 2>&1); then echo %s:done; else echo "%s:refused $out"; fi; `, cmd, name, name)
	}
	return `for p in /proc/[0-9]*; do echo "proc $p $(tr '\0' ' ' < $p/cmdline 2>/dev/null)"; done; ` +
		`grep -l ns-outside-secret /proc/[0-9]*/environ 2>/dev/null | sed 's/^/environ-found /'; ` +
		`grep -l '301[.]5731' /proc/[0-9]*/cmdline 2>/dev/null | sed 's/^/cmdline-found /'; ` +
		try("signal-outside", "kill -0 "+strconv.Itoa(sleeper)) +
		try("chmod-outside", "chmod 600 "+outside) +
		try("touch-outside", "touch -d 2001-01-01 "+outside) +
		try("chmod-inside", "chmod 600 "+inside) +
		try("touch-inside", "touch -d 2001-01-01 "+inside)
}

// nsWarnings are the run's warnings about namespaces it could not have.
func nsWarnings(evs []map[string]any) []string {
	var out []string
	for _, e := range testkit.OfType(evs, "warning") {
		if msg, _ := e["message"].(string); strings.Contains(msg, "namespace") || strings.Contains(msg, "read-only") || strings.Contains(msg, "/tmp of their own") {
			out = append(out, msg)
		}
	}
	return out
}

// TestEscapeNamespaces: under the sandbox, where the machine allows namespaces, a command
// sees only the run's processes in /proc (not kimi-run, not its launcher, not a process
// outside), so it cannot read another process's environment or command line, and it
// cannot change the mode or the times of a file outside the writable dirs (Landlock
// cannot refuse that); inside them it can. With KIMI_RUN_NS=off (the control) the run
// warns once and each attempt works as it did before the namespaces.
func TestEscapeNamespaces(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	sleeper := exec.Command("sleep", "301.5731")
	sleeper.Env = append(os.Environ(), "NS_SECRET=ns-outside-secret")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { sleeper.Wait(); close(done) }()
	t.Cleanup(func() { sleeper.Process.Kill(); <-done })

	for _, off := range []bool{false, true} {
		t.Run(fmt.Sprintf("KIMI_RUN_NS=off:%v", off), func(t *testing.T) {
			root := t.TempDir()
			work := filepath.Join(root, "work")
			outside, inside := filepath.Join(root, "outside.txt"), filepath.Join(work, "inside.txt")
			if err := os.MkdirAll(work, 0o755); err != nil {
				t.Fatal(err)
			}
			then := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
			for _, f := range []string{outside, inside} {
				if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(f, then, then); err != nil {
					t.Fatal(err)
				}
			}
			// root is HOME, so outside stays in sight of the commands (with a /tmp of their
			// own, the rest of the shared temp dir is not).
			env := map[string]string{"HOME": root}
			if off {
				env["KIMI_RUN_NS"] = "off"
			}
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.CallID("ns", "Shell", fmt.Sprintf(`{"command":%q}`, nsAttempts(outside, inside, sleeper.Process.Pid)))),
				scripted.Text("done"))
			r := kimi(t, srv, invocation{dir: work, env: env, args: []string{"--output-format", "stream-json", "--sandbox", "workspace-write", "-p", "x"}})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			evs := events(t, r.stdout)
			out, _ := results(evs)["ns"]["output"].(string)
			warned := nsWarnings(evs)
			st, err := os.Stat(outside)
			if err != nil {
				t.Fatal(err)
			}
			changed := st.Mode().Perm() != 0o644 || !st.ModTime().Equal(then)
			if off {
				// The control: one warning, and every attempt works as before.
				if len(warned) != 1 || !strings.Contains(warned[0], "KIMI_RUN_NS=off") {
					t.Errorf("warnings with KIMI_RUN_NS=off: %q", warned)
				}
				for _, want := range []string{"\nenviron-found /proc", "\ncmdline-found /proc", "chmod-outside:done", "touch-outside:done"} {
					if !strings.Contains(out, want) {
						t.Errorf("control: no %s:\n%s", want, out)
					}
				}
				if !changed {
					t.Error("control: the outside file's mode and times were not changed")
				}
				return
			}
			pidRefused, roRefused := false, false
			for _, w := range warned {
				switch {
				case strings.Contains(w, "without namespaces"):
					t.Skipf("this machine gives commands no namespaces: %s", w)
				case strings.Contains(w, "process namespace"):
					pidRefused = true
					t.Logf("no process namespace here: %s", w)
				case strings.Contains(w, "read-only"):
					roRefused = true
					t.Logf("no read-only mounts here: %s", w)
				}
			}
			if !pidRefused {
				for _, line := range strings.Split(out, "\n") {
					if strings.HasPrefix(line, "proc ") && (strings.Contains(line, binary) ||
						strings.Contains(line, "__kimi-run-launcher top") || strings.Contains(line, "__kimi-run-launcher box") ||
						strings.Contains(line, "301.5731")) {
						t.Errorf("a process outside the run is in the command's /proc: %s", line)
					}
				}
				for _, not := range []string{"\nenviron-found /proc", "\ncmdline-found /proc"} {
					if strings.Contains(out, not) {
						t.Errorf("%s:\n%s", not, out)
					}
				}
				if !strings.Contains(out, "signal-outside:refused") || !strings.Contains(out, "No such process") {
					t.Errorf("the outside process could be named by its number:\n%s", out)
				}
			}
			if !roRefused {
				if changed || !strings.Contains(out, "chmod-outside:refused") || !strings.Contains(out, "touch-outside:refused") {
					t.Errorf("the outside file's mode or times changed (%v, %v):\n%s", st.Mode(), st.ModTime(), out)
				}
			}
			if !strings.Contains(out, "chmod-inside:done") || !strings.Contains(out, "touch-inside:done") {
				t.Errorf("a file in the work dir could not be changed:\n%s", out)
			}
		})
	}
}

// hostPIDs are the machine's numbers of the processes whose command line holds marker
// (the numbers a command in a process namespace writes are the namespace's).
func hostPIDs(marker string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), marker) && !strings.Contains(string(b), "sh\x00-c") {
			out = append(out, pid)
		}
	}
	return out
}

// TestNamespaceLifetime: in the commands' process namespace, what a command moves out of
// its group (a setsid'd server, a double-forked daemon) still ends with the run, and
// --keep-background still keeps it; the processes are found by their command lines, the
// numbers they would write being the namespace's.
func TestNamespaceLifetime(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep-background=%v", keep), func(t *testing.T) {
			t.Parallel()
			marker := fmt.Sprintf("302.%d%v", os.Getpid(), map[bool]int{false: 1, true: 2}[keep])
			cmd := fmt.Sprintf(`setsid sh -c 'echo $$ > setsid.pid; exec sleep %[1]s' > /dev/null 2>&1 & `+
				`(sh -c 'echo $$ > daemon.pid; exec sleep %[1]s' > /dev/null 2>&1 &) ; `+
				`until [ -s setsid.pid ] && [ -s daemon.pid ]; do sleep 0.01; done; cat /proc/1/cmdline | tr '\0' ' '`, marker)
			dir := t.TempDir()
			args := []string{"--output-format", "stream-json", "--sandbox", "workspace-write", "-p", "x"}
			if keep {
				args = append(args, "--keep-background")
			}
			srv := scripted.New(t, scripted.ToolCalls(scripted.CallID("start", "Shell", fmt.Sprintf(`{"command":%q}`, cmd))), scripted.Text("done"))
			r := kimi(t, srv, invocation{dir: dir, args: args})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			evs := events(t, r.stdout)
			if w := nsWarnings(evs); len(w) > 0 {
				t.Skipf("no process namespace here: %q", w)
			}
			if out, _ := results(evs)["start"]["output"].(string); !strings.Contains(out, "__kimi-run-launcher init") {
				t.Fatalf("the command did not run in a process namespace of the run's:\n%s", out)
			}
			if keep {
				pids := hostPIDs("sleep\x00" + marker)
				for _, pid := range pids {
					start := testkit.Started(pid)
					t.Cleanup(func() { testkit.Kill(pid, start, false) })
				}
				if len(pids) != 2 {
					t.Errorf("--keep-background kept %d of the 2 processes", len(pids))
				}
				return
			}
			deadline := time.Now().Add(30 * time.Second)
			for len(hostPIDs("sleep\x00"+marker)) > 0 {
				if time.Now().After(deadline) {
					for _, pid := range hostPIDs("sleep\x00" + marker) {
						syscall.Kill(pid, syscall.SIGKILL)
					}
					t.Fatal("a process the command left outlived the run")
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

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
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// nsAttempts is a command that lists the processes it sees, looks for the outside
// process's secret in every environ and its marker in every cmdline, and changes the mode
// and the times of a file outside the writable dirs, and of one inside.
func nsAttempts(outside, inside string) string {
	try := func(name, cmd string) string {
		return fmt.Sprintf(`if out=$(%s 2>&1); then echo %s:done; else echo "%s:refused $out"; fi; `, cmd, name, name)
	}
	return `for p in /proc/[0-9]*; do echo "proc $p $(tr '\0' ' ' < $p/cmdline 2>/dev/null)"; done; ` +
		`grep -l ns-outside-secret /proc/[0-9]*/environ 2>/dev/null | sed 's/^/environ-found /'; ` +
		`grep -l '301[.]5731' /proc/[0-9]*/cmdline 2>/dev/null | sed 's/^/cmdline-found /'; ` +
		try("chmod-outside", "chmod 600 "+outside) +
		try("touch-outside", "touch -d 2001-01-01 "+outside) +
		try("chmod-inside", "chmod 600 "+inside) +
		try("touch-inside", "touch -d 2001-01-01 "+inside)
}

// nsWarnings are the run's warnings about namespaces it could not have.
func nsWarnings(evs []map[string]any) []string {
	var out []string
	for _, e := range testkit.OfType(evs, "warning") {
		if msg, _ := e["message"].(string); strings.Contains(msg, "namespace") || strings.Contains(msg, "read-only") {
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
			env := map[string]string{}
			if off {
				env["KIMI_RUN_NS"] = "off"
			}
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.CallID("ns", "Shell", fmt.Sprintf(`{"command":%q}`, nsAttempts(outside, inside)))),
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

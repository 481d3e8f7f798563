//go:build linux

package run_test

// The escape suite, continued: attempts an independent check of issue 26 added to what the
// other escape files try — the job's process group killed as a CI runner cancels a job,
// descriptors a command could inherit from kimi-run, and the environment of an MCP server
// holding a credential of its own.

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

// TestJobGroupKillTakesChildrenAlong: a CI runner cancels a job by sending SIGKILL to the
// job's process group — the job's shell and kimi-run, which it started without exec. The
// launcher leads a session of its own, so it is not in that group: it sees kimi-run gone
// and ends everything the run started, in the command's group or out of it (a setsid'd
// daemon), with the sandbox and without.
func TestJobGroupKillTakesChildrenAlong(t *testing.T) {
	t.Parallel()
	command := `(sleep 300; :) & echo $! > child.pid; (setsid sh -c 'echo $$ > daemon.pid; exec sleep 300' > /dev/null 2>&1 &); echo $$ > shell.pid; exec sleep 300`
	for _, sandboxed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandbox=%v", sandboxed), func(t *testing.T) {
			t.Parallel()
			if sandboxed {
				needLandlock(t, 1)
			}
			work := t.TempDir()
			srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", fmt.Sprintf(`{"command":%q}`, command))))
			args := []string{"-w", work, "--output-format", "stream-json", "--no-session", "-p", "x"}
			if sandboxed {
				args = append(args, "--sandbox", "workspace-write")
			}
			// The job script: kimi-run as a child of the job's shell, in the job's group.
			job := exec.Command("sh", append([]string{"-c", `"$KIMI" "$@"; echo "kimi-run ended: $?"`, "job"}, args...)...)
			job.Env = append(crashEnv(t, srv), "KIMI="+binary, "KIMI_RUN_NS=off") // the pids written are the machine's
			job.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := job.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { job.Wait(); close(done) }()
			files := []string{"shell.pid", "child.pid", "daemon.pid"}
			var pids []int
			for deadline := time.Now().Add(time.Minute); len(pids) < len(files); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					testkit.Kill(job.Process.Pid, 0, true)
					t.Fatal("the command never started its processes")
				}
				pids = pids[:0]
				for _, f := range files {
					if b, err := os.ReadFile(filepath.Join(work, f)); err == nil {
						if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
							pids = append(pids, pid)
						}
					}
				}
			}
			for _, pid := range pids {
				start := testkit.Started(pid)
				t.Cleanup(func() { testkit.Kill(pid, start, false) })
			}
			// The runner's cancel: the whole group at once, nothing it can catch.
			if err := syscall.Kill(-job.Process.Pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-done
			for _, pid := range pids {
				testkit.WaitGone(t, pid)
			}
		})
	}
}

// TestEscapeInheritedDescriptors: kimi-run may itself inherit open descriptors from whatever
// started it (a wrapper script's `exec 3>>/var/log/job.log`, a make jobserver's pipe, a CI
// runner's log file). A command tries to write through every descriptor it holds, as a
// hostile model would to get past the sandbox (an open file is not looked at again), and
// lists them: it holds only its stdin, stdout and stderr, and the file kimi-run inherited,
// outside the work dir, is left untouched, with the sandbox and without.
func TestEscapeInheritedDescriptors(t *testing.T) {
	t.Parallel()
	// What the Shell tool's shell holds, whatever it starts inherits: a sleeper started from
	// it is listed (listing the shell itself would show its own reads of the listing).
	look := `for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && echo escaped >&$fd; done 2>/dev/null; ` +
		`sleep 30 & p=$!; ls -l /proc/$p/fd; kill $p`
	for _, sandboxed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandbox=%v", sandboxed), func(t *testing.T) {
			t.Parallel()
			if sandboxed {
				needLandlock(t, 1)
			}
			work, outside := t.TempDir(), t.TempDir()
			log, err := os.OpenFile(filepath.Join(outside, "job.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.CallID("look", "Shell", fmt.Sprintf(`{"command":%q}`, look))),
				scripted.Text("done"))
			args := []string{"-w", work, "--no-session", "--output-format", "stream-json", "-p", "x"}
			if sandboxed {
				args = append(args, "--sandbox", "workspace-write")
			}
			cmd := exec.Command(binary, args...)
			cmd.Env = crashEnv(t, srv)
			// Descriptors 3 to 10 of kimi-run, none close-on-exec (kimi-run's own start of its
			// launcher puts a socket at 3, so 3 alone would not show it).
			cmd.ExtraFiles = []*os.File{log, log, log, log, log, log, log, log}
			r := runCmd(t, cmd)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			out, _ := results(events(t, r.stdout))["look"]["output"].(string)
			var fds []string
			for _, line := range strings.Split(out, "\n") {
				// "lrwx------ 1 user group 64 Nov 26 23:10 3 -> /path"
				if before, after, ok := strings.Cut(line, " -> "); ok {
					f := strings.Fields(before)
					fds = append(fds, f[len(f)-1]+" -> "+after)
				}
			}
			if len(fds) < 3 {
				t.Fatalf("the command did not list its descriptors:\n%s", out)
			}
			for _, fd := range fds {
				n, target, _ := strings.Cut(fd, " -> ")
				// sleep's own dynamic loader may hold a library or its cache open while it
				// is listed: that descriptor is the child's, not one it inherited.
				if loading := strings.Contains(target, ".so.") || strings.HasSuffix(target, ".so") || strings.HasSuffix(target, "ld.so.cache"); loading {
					continue
				}
				if n != "0" && n != "1" && n != "2" {
					t.Errorf("the command inherited descriptor %s", fd)
				}
			}
			if b, _ := os.ReadFile(log.Name()); len(b) > 0 {
				t.Errorf("the command wrote through an inherited descriptor: %q", b)
			}
		})
	}
}

// TestEscapeMCPServerEnviron: an MCP server given a credential in its own env (config's
// "env") holds it in its environment, which kimi-run cannot hide once the server runs: a
// command of the run reads /proc/PID/environ of a process of its user, sandbox or not,
// confined server or not (here the server runs unconfined, outside the work dir). What kimi-run holds: the credential, read as it is or reversed, never reaches the
// model, the events or the session (it is scrubbed, in each of its forms).
func TestEscapeMCPServerEnviron(t *testing.T) {
	t.Parallel()
	const token = "mcp-service-token-31415926"
	// The command finds the server by its variable and prints it as it is and reversed.
	attack := `for e in /proc/[0-9]*/environ; do v=$(tr '\0' '\n' < $e 2>/dev/null | grep '^SERVICE_TOKEN='); ` +
		`if [ -n "$v" ]; then echo "found $v"; echo "$v" | rev; fi; done; echo scanned`
	for _, sandboxed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandbox=%v", sandboxed), func(t *testing.T) {
			t.Parallel()
			if sandboxed {
				needLandlock(t, 1)
			}
			server := stdioServer(t, "svc")
			home := t.TempDir()
			server["cwd"] = home // outside the work dir, in HOME, which stays in sight
			server["env"] = map[string]string{"SERVICE_TOKEN": token}
			cfg := mcpConfigFile(t, map[string]any{"svc": server})
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.CallID("read", "Shell", fmt.Sprintf(`{"command":%q}`, attack))),
				scripted.Text("done"))
			sessions := t.TempDir()
			args := []string{"--output-format", "stream-json", "--mcp-config-file", cfg, "--mcp-strict",
				"--session-dir", sessions, "-p", "x"}
			if sandboxed {
				args = append(args, "--sandbox", "workspace-write")
			}
			r := kimi(t, srv, invocation{proc: true, env: map[string]string{"HOME": home}, args: args})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			out, _ := results(events(t, r.stdout))["read"]["output"].(string)
			if !strings.Contains(out, "found SERVICE_TOKEN=[redacted]") {
				t.Fatalf("the command did not read the server's environment as the test expects:\n%s", out)
			}
			var saved strings.Builder
			filepath.WalkDir(sessions, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(p)
					saved.Write(b)
				}
				return nil
			})
			for where, text := range map[string]string{"the model": string(srv.Requests()[1].Raw), "stdout": r.stdout,
				"stderr": r.stderr, "the session": saved.String()} {
				if strings.Contains(text, token) || strings.Contains(text, reverse(token)) {
					t.Errorf("the server's credential reached %s, as it is or reversed", where)
				}
			}
		})
	}
}

package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kimi-run/kimi-run/internal/procgroup"
)

// Shell timeouts, in seconds.
const (
	// ShellDefaultTimeout applies when a call gives no timeout.
	ShellDefaultTimeout = 60
	// ShellMaxTimeout is the largest timeout a call may ask for; more is an error result.
	ShellMaxTimeout = 300
)

// shellGrace is how long a stopped command's process group gets between SIGTERM and
// SIGKILL, and how long Shell waits for background processes to release the output
// after the command itself has exited. A stopping run must finish within two seconds of
// SIGINT or SIGTERM, so this stays well below that.
const shellGrace = time.Second

// shellEnv holds settings that keep common tools from waiting on a person: no
// credential prompts, no pagers, no editors, no installer questions.
var shellEnv = []string{
	"GIT_TERMINAL_PROMPT=0",
	"GIT_PAGER=cat",
	"PAGER=cat",
	"GIT_EDITOR=true",
	"EDITOR=true",
	"VISUAL=true",
	"DEBIAN_FRONTEND=noninteractive",
	"PIP_NO_INPUT=1",
}

const shellDescription = `Run a shell command and return its output.

The command runs with {shell_run} in the work dir, in a fresh shell each call (cd and exported variables do not carry over to the next call). Nothing can be typed into it: standard input is empty and there is no terminal, so use non-interactive flags (for example apt-get -y, git commit -m) and never start editors or pagers.

stdout and stderr come back merged, in the order they were written, after a first line giving the exit status. Long output keeps its first {shell_head_bytes} and last {shell_tail_bytes} bytes with a note of what was left out, so redirect big outputs to a file and search that instead.

timeout is in seconds: default {shell_default_timeout}, at most {shell_max_timeout}. When it expires, the command and every process it started are killed. Processes a command leaves running in the background (for example a server started with &) keep running for later calls, and are stopped when the whole run ends.

A non-zero exit status or a timeout is reported as an error.`

// shellFacts: a command may read, write and reach anything; the sandbox's helper confines
// it in the kernel, so no argument is checked.
var shellFacts = Facts{ReadsFiles: true, WritesFiles: true, Network: true, Destructive: true, Where: InCommand}

// shellArgs are the arguments of a Shell call.
type shellArgs struct {
	Command string `json:"command" description:"the command line to run with {shell_run}"`
	Timeout int    `json:"timeout,omitempty" description:"seconds before the command is killed; default {shell_default_timeout}, maximum {shell_max_timeout}"`
}

// shell runs commands for the model.
type shell struct {
	workDir string
	grace   time.Duration
	groups  *ShellGroups
	prefix  []string
	environ []string
}

// NewShell returns the Shell tool, which runs commands in env.WorkDir and records their
// process groups in env.ShellGroups.
func NewShell(env Env) Tool {
	s := &shell{workDir: env.WorkDir, grace: shellGrace, groups: env.ShellGroups, prefix: env.ShellPrefix, environ: env.Environ}
	return New("Shell", shellDescription, shellFacts, s.run)
}

func (s *shell) run(ctx context.Context, in shellArgs) (Result, error) {
	if strings.TrimSpace(in.Command) == "" {
		return Errorf("command is empty").WithKimi("Command cannot be empty.", ""), nil
	}
	if in.Timeout < 0 || in.Timeout > ShellMaxTimeout {
		return Errorf("timeout must be between 1 and %d seconds, got %d; split long work into shorter commands or run it in the background with its output sent to a file",
			ShellMaxTimeout, in.Timeout), nil
	}
	if ctx.Err() != nil {
		return Errorf("Command not run: the run is stopping."), nil
	}
	seconds := in.Timeout
	if seconds == 0 {
		seconds = ShellDefaultTimeout
	}

	runCtx, cancel := context.WithTimeout(ctx, time.Duration(seconds)*time.Second)
	defer cancel()
	out := newHeadTail(shellHeadBytes, shellTailBytes)
	name, args := shellCommand(in.Command)
	if len(s.prefix) > 0 {
		args = append(append(append([]string(nil), s.prefix[1:]...), name), args...)
		name = s.prefix[0]
	}
	cmd := exec.CommandContext(runCtx, name, args...)
	cmd.Dir = s.workDir
	base := s.environ
	if base == nil {
		base = os.Environ()
	}
	cmd.Env = append(slices.Clip(base), shellEnv...)
	cmd.Stdin = nil // reads get EOF at once
	// The same writer for both: exec then uses one pipe, so the order is kept. The call's
	// meter, when it has one, counts the output for the heartbeat.
	w := meterOutput(ctx, out)
	cmd.Stdout = w
	cmd.Stderr = w

	var stoppedAt atomic.Int64 // unix nanoseconds when the group was told to stop
	cmd.Cancel = func() error {
		stoppedAt.Store(time.Now().UnixNano())
		return procgroup.Signal(cmd.Process, false)
	}
	// Wait gives up on the output pipe this long after the command exits or is stopped,
	// so a background process that keeps the pipe open cannot hold the call.
	cmd.WaitDelay = s.grace

	// A group of its own (procgroup): the whole group can be signalled at once, and with
	// no controlling terminal nothing in it can stop to prompt on /dev/tty.
	if err := procgroup.Start(cmd, s.groups.watcher()); err != nil {
		return Errorf("cannot start the shell %s: %v", name, err), nil
	}
	s.groups.add(cmd.Process)
	waitErr := cmd.Wait()
	if at := stoppedAt.Load(); at != 0 {
		// Give what is left of the stopped group until the grace ends to exit after
		// SIGTERM, then kill it, so no child or grandchild outlives the call.
		procgroup.WaitGone(time.Unix(0, at).Add(s.grace), cmd.Process)
		_ = procgroup.Signal(cmd.Process, true)
	}

	status, isErr := shellStatus(ctx, cmd.ProcessState, stoppedAt.Load() != 0, seconds)
	var b strings.Builder
	b.WriteString(status)
	if errors.Is(waitErr, exec.ErrWaitDelay) && stoppedAt.Load() == 0 {
		b.WriteString(" Processes it left in the background kept the output open; their later output is not shown.")
	}
	b.WriteByte('\n')
	if text := strings.TrimRight(out.String(), "\n"); text != "" {
		b.WriteString(text)
	} else {
		b.WriteString("(no output)")
	}
	return Result{Output: b.String(), IsError: isErr}.WithKimi(kimiShellMessage(ctx, cmd.ProcessState, stoppedAt.Load() != 0, seconds), out.String()), nil
}

// kimiShellMessage is how Kimi CLI's Shell tool words the same ending (tools/shell), for
// Kimi's message lines.
func kimiShellMessage(ctx context.Context, ps *os.ProcessState, stopped bool, seconds int) string {
	switch {
	case stopped && ctx.Err() == nil:
		return fmt.Sprintf("Command killed by timeout (%ds)", seconds)
	case ps != nil && ps.ExitCode() == 0 && !stopped:
		return "Command executed successfully."
	case ps != nil && ps.ExitCode() > 0:
		return fmt.Sprintf("Command failed with exit code: %d.", ps.ExitCode())
	}
	return fmt.Sprintf("Command execution failed: %s", shellEnding(ctx, ps, stopped))
}

// shellEnding names an ending that has no exit code, for kimiShellMessage.
func shellEnding(ctx context.Context, ps *os.ProcessState, stopped bool) string {
	switch {
	case stopped && ctx.Err() != nil:
		return "the run is stopping"
	case ps == nil:
		return "no exit status"
	}
	return ps.String()
}

// shellStatus describes how a command ended and whether that counts as a failure.
func shellStatus(ctx context.Context, ps *os.ProcessState, stopped bool, seconds int) (string, bool) {
	switch {
	case stopped && ctx.Err() != nil:
		return "Command cancelled: the run is stopping, so the command was killed.", true
	case stopped:
		return fmt.Sprintf("Command killed by timeout after %ds.", seconds), true
	case ps == nil:
		return "Command ended without an exit status.", true
	case ps.ExitCode() == 0:
		return "Command succeeded (exit code 0).", false
	case ps.ExitCode() > 0:
		return fmt.Sprintf("Command failed (exit code %d).", ps.ExitCode()), true
	default:
		return fmt.Sprintf("Command was killed (%s).", ps), true
	}
}

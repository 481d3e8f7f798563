package tools

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/tools/background"
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

stdout and stderr come back merged, in the order they were written, after a first line giving the exit status. Long output is cut to {shell-output-bytes} bytes, its start and its end, with a note of what was left out, so redirect big outputs to a file and search that instead.

timeout is in seconds: default {shell_default_timeout}, at most {shell_max_timeout}. When it expires, the command and every process it started are killed. Processes a command leaves running in the background (for example a server started with &) keep running for later calls, and are stopped when the whole run ends.

A non-zero exit status or a timeout is reported as an error.

For a server, a watcher or a long build that should run while you go on working, set run_in_background=true with a short description: the call returns at once with a task id, the command runs as a background task, and you are told with a <notification> message when it ends. TaskOutput shows its output so far (block=true waits for its end), TaskStop stops it, TaskList lists the tasks. For a background task, timeout is the most seconds it may run (up to {shell_background_max}; default: the run's [background] agent_task_timeout_s, 900 unless configured). Tasks still running when you give your final answer are waited for, and you are called back to report on them. Do not guess a task's outcome: wait for its notification or look with TaskOutput.`

// shellFacts: a command may read, write and reach anything; the launcher confines it in
// the kernel under the sandbox, so no argument is checked.
var shellFacts = Facts{ReadsFiles: true, WritesFiles: true, Network: true, Destructive: true, Where: InCommand}

// shellArgs are the arguments of a Shell call.
type shellArgs struct {
	Command         string `json:"command" description:"the command line to run with {shell_run}"`
	Timeout         int    `json:"timeout,omitempty" default:"60" minimum:"1" maximum:"86400" description:"seconds before the command is killed; default {shell_default_timeout}, maximum {shell_max_timeout} (a background task: default [background] agent_task_timeout_s, up to {shell_background_max})"`
	RunInBackground bool   `json:"run_in_background,omitempty" default:"false" description:"start the command as a background task and return its task id at once (default false)"`
	Description     string `json:"description,omitempty" default:"\"\"" description:"a short description of the background task; required with run_in_background"`
}

// shell runs commands for the model.
type shell struct {
	workDir string
	grace   time.Duration
	groups  *ShellGroups
	launch  *launch.Launcher
	tasks   *background.Manager
	// outMax is the most bytes of output the model reads (Settings.ShellOutputBytes).
	outMax int
}

// NewShell returns the Shell tool, which runs commands in env.WorkDir through
// env.Launcher and records their process groups in env.ShellGroups.
func NewShell(env Env) Tool {
	s := &shell{workDir: env.WorkDir, grace: shellGrace, groups: env.ShellGroups, launch: env.Launcher, tasks: env.Tasks,
		outMax: env.settings().ShellOutputBytes}
	return New("Shell", env.settings().Quote(shellDescription), shellFacts, s.run)
}

func (s *shell) run(ctx context.Context, in shellArgs) (Result, error) {
	if strings.TrimSpace(in.Command) == "" {
		return Errorf("command is empty").WithKimi("Command cannot be empty.", ""), nil
	}
	if in.RunInBackground {
		return s.background(ctx, in), nil
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
	out := newHeadTail(s.outMax/2, s.outMax-s.outMax/2)
	name, args := shellCommand(in.Command)
	// stdout and stderr share one pipe, so the order of their lines is kept.
	r, w, err := os.Pipe()
	if err != nil {
		return Errorf("cannot start the shell %s: %v", name, err), nil
	}
	// A group of its own, confined under the sandbox, ended with the run (launch). Stdin is
	// /dev/null, so reads get EOF at once, and there is no controlling terminal, so
	// nothing can stop to prompt on /dev/tty.
	p, err := s.launch.Start(launch.Spec{Path: name, Args: append([]string{name}, args...), Env: shellEnv,
		Dir: s.workDir, Stdout: w, Stderr: w, Confine: true, Keep: true})
	w.Close()
	if err != nil {
		r.Close()
		return Errorf("cannot start the shell %s: %v", name, err), nil
	}
	s.groups.add(p)
	copied := make(chan struct{})
	go func() {
		// The call's meter, when it has one, counts the output for the heartbeat.
		_, _ = io.Copy(meterOutput(ctx, out), r)
		close(copied)
	}()

	var stoppedAt time.Time // when the group was told to stop
	select {
	case <-p.Done():
	case <-runCtx.Done():
		stoppedAt = time.Now()
		_ = p.Signal(false)
		select {
		case <-p.Done():
		case <-time.After(s.grace):
			_ = p.Signal(true)
		}
	}
	state := p.Wait()
	stopped := !stoppedAt.IsZero()
	// The output ends when the last process holding the pipe lets go; a background
	// process that keeps it open gets the grace, and cannot hold the call longer.
	held := false
	select {
	case <-copied:
	case <-time.After(s.grace):
		held = true
	}
	if stopped {
		// Give what is left of the stopped group until the grace ends to exit after
		// SIGTERM, then kill it, so no child or grandchild outlives the call.
		launch.WaitGone(stoppedAt.Add(s.grace), p)
		_ = p.Signal(true)
	}
	r.Close()
	<-copied

	status, isErr := shellStatus(ctx, state, stopped, seconds)
	var b strings.Builder
	b.WriteString(status)
	if held && !stopped {
		b.WriteString(" Processes it left in the background kept the output open; their later output is not shown.")
	}
	b.WriteByte('\n')
	if text := strings.TrimRight(out.String(), "\n"); text != "" {
		b.WriteString(text)
	} else {
		b.WriteString("(no output)")
	}
	return Result{Output: b.String(), IsError: isErr}.WithKimi(kimiShellMessage(ctx, state, stopped, seconds), out.String()), nil
}

// background starts the command as a background task (tools/background) and answers with
// its id at once.
func (s *shell) background(ctx context.Context, in shellArgs) Result {
	maxTimeout := int(background.MaxTimeout / time.Second)
	switch {
	case strings.TrimSpace(in.Description) == "":
		return Errorf("description is required when run_in_background is true: give the task a few words that say what it is").
			WithKimi("description is required when run_in_background is true", "")
	case in.Timeout < 0 || in.Timeout > maxTimeout:
		return Errorf("timeout of a background task must be between 1 and %d seconds, got %d", maxTimeout, in.Timeout)
	case InSubagent(ctx):
		return Errorf("only the main agent can start background tasks; run the command in the foreground, without run_in_background").
			WithKimi("Failed to start background task: Background tasks are only supported from the root agent.", "")
	case ctx.Err() != nil:
		return Errorf("Command not run: the run is stopping.")
	}
	name, args := shellCommand(in.Command)
	t, err := s.tasks.Start(background.Spec{Path: name, Args: append([]string{name}, args...), Env: shellEnv,
		Command: in.Command, Description: strings.TrimSpace(in.Description),
		Timeout: time.Duration(in.Timeout) * time.Second, ToolCallID: CallID(ctx)})
	if err != nil {
		return Errorf("The background task did not start: %v", err).WithKimi("Failed to start background task: "+err.Error(), "")
	}
	text := strings.Join([]string{
		"task_id: " + t.ID,
		"kind: " + background.Kind,
		"status: " + string(t.Status),
		"description: " + t.Description,
		"command: " + t.Command,
		fmt.Sprintf("timeout_s: %d", int(t.Timeout/time.Second)),
		"output_path: " + t.OutputPath,
		"automatic_notification: true",
		"next_step: you will get a <notification> message when it ends; go on with your work meanwhile.",
		"next_step: TaskOutput shows what it printed so far without waiting; set block=true only to wait for its end.",
		"next_step: TaskStop stops it, only if it must not run on.",
	}, "\n")
	return Text(text).WithKimi("Background task started", text)
}

// kimiShellMessage is how Kimi CLI's Shell tool words the same ending (tools/shell), for
// Kimi's message lines.
func kimiShellMessage(ctx context.Context, ps launch.State, stopped bool, seconds int) string {
	switch {
	case stopped && ctx.Err() == nil:
		return fmt.Sprintf("Command killed by timeout (%ds)", seconds)
	case ps.ExitCode() == 0 && !stopped:
		return "Command executed successfully."
	case ps.ExitCode() > 0:
		return fmt.Sprintf("Command failed with exit code: %d.", ps.ExitCode())
	}
	return fmt.Sprintf("Command execution failed: %s", shellEnding(ctx, ps, stopped))
}

// shellEnding names an ending that has no exit code, for kimiShellMessage.
func shellEnding(ctx context.Context, ps launch.State, stopped bool) string {
	if stopped && ctx.Err() != nil {
		return "the run is stopping"
	}
	return ps.String()
}

// shellStatus describes how a command ended and whether that counts as a failure.
func shellStatus(ctx context.Context, ps launch.State, stopped bool, seconds int) (string, bool) {
	switch {
	case stopped && ctx.Err() != nil:
		return "Command cancelled: the run is stopping, so the command was killed.", true
	case stopped:
		return fmt.Sprintf("Command killed by timeout after %ds.", seconds), true
	case ps.ExitCode() == 0:
		return "Command succeeded (exit code 0).", false
	case ps.ExitCode() > 0:
		return fmt.Sprintf("Command failed (exit code %d).", ps.ExitCode()), true
	default:
		return fmt.Sprintf("Command was killed (%s).", ps), true
	}
}

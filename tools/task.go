package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/tools/background"
)

// The background task tools (Kimi CLI's TaskList, TaskOutput and TaskStop), for the tasks
// Shell starts with run_in_background (tools/background). Only the main agent has them, as
// in Kimi CLI: a subagent's work ends with its answer, and so would its tasks.

// Limits of the task tools' arguments, Kimi CLI's.
const (
	taskListDefault    = 20
	taskListMax        = 100
	taskWaitDefault    = 30
	taskWaitMax        = 3600
	taskReadHintLines  = 300
	taskDefaultStopWhy = "Stopped by TaskStop"
)

// taskFacts: the task tools act on the main agent's own tasks, so no subagent gets them.
var (
	taskReadFacts = Facts{ReadsFiles: true, ReadOnly: true, RootOnly: true}
	taskStopFacts = Facts{RootOnly: true, Destructive: true}
)

const taskListDescription = `List the background tasks of this run (started by Shell with run_in_background=true): their ids, status, description and command.

Use it to find a task's id again, for example after the conversation was compacted, rather than guessing which tasks still run. By default only the tasks still running are listed; active_only=false lists the ended ones too. It changes nothing.`

const taskOutputDescription = `Show a background task's status and the end of its output (its last [background] read_max_bytes, 30000 bytes unless the config says otherwise), with the path of the file that holds all of it.

By default it answers at once with what the task has printed so far. block=true waits for the task to end, at most timeout seconds. You are told anyway when a task ends, so wait only when you need the result now. To read a long output in pages, use ReadFile on the output_path it gives.`

const taskStopDescription = `Stop a background task: SIGTERM to it and everything it started, SIGKILL to what is left after a grace period. It answers once the task has ended.

Stop a task only when it must not run on (a server no longer needed, a command that hangs): stopping may leave its work half done. A task that has ended already is left as it is.`

type taskListArgs struct {
	ActiveOnly *bool `json:"active_only,omitempty" default:"true" description:"list only the tasks still running (default true)"`
	Limit      int   `json:"limit,omitempty" default:"20" minimum:"1" maximum:"100" description:"the most tasks to list, newest first: 1 to {task_list_max} (default {task_list_default})"`
}

type taskOutputArgs struct {
	TaskID  string `json:"task_id" description:"the task's id, as Shell or TaskList gave it"`
	Block   bool   `json:"block,omitempty" default:"false" description:"wait for the task to end before answering (default false: answer at once)"`
	Timeout *int   `json:"timeout,omitempty" default:"30" minimum:"0" maximum:"3600" description:"with block: the most seconds to wait, 0 to {task_wait_max} (default {task_wait_default})"`
}

type taskStopArgs struct {
	TaskID string `json:"task_id" description:"the task's id, as Shell or TaskList gave it"`
	Reason string `json:"reason,omitempty" default:"\"Stopped by TaskStop\"" description:"a few words on why it is stopped, kept with the task"`
}

// NewTaskList returns the TaskList tool over env.Tasks.
func NewTaskList(env Env) Tool {
	return New("TaskList", taskListDescription, taskReadFacts, func(ctx context.Context, in taskListArgs) (Result, error) {
		if r, ok := taskRefused(ctx, env.Tasks); !ok {
			return r, nil
		}
		limit := in.Limit
		if limit == 0 {
			limit = taskListDefault
		}
		if limit < 1 || limit > taskListMax {
			return Errorf("limit must be between 1 and %d, got %d", taskListMax, limit), nil
		}
		active := in.ActiveOnly == nil || *in.ActiveOnly
		ts := env.Tasks.List(active, limit)
		header := "background_tasks"
		if active {
			header = "active_background_tasks"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d", header, len(ts))
		if len(ts) == 0 {
			b.WriteString("\n(none)")
		}
		for i, t := range ts {
			fmt.Fprintf(&b, "\n\n[%d]\n%s", i+1, taskLines(t))
		}
		return Text(b.String()).WithKimi("Task list retrieved.", b.String()), nil
	})
}

// NewTaskOutput returns the TaskOutput tool over env.Tasks.
func NewTaskOutput(env Env) Tool {
	return New("TaskOutput", taskOutputDescription, taskReadFacts, func(ctx context.Context, in taskOutputArgs) (Result, error) {
		if r, ok := taskRefused(ctx, env.Tasks); !ok {
			return r, nil
		}
		wait := taskWaitDefault
		if in.Timeout != nil {
			wait = *in.Timeout
		}
		if wait < 0 || wait > taskWaitMax {
			return Errorf("timeout must be between 0 and %d seconds, got %d", taskWaitMax, wait), nil
		}
		t, err := env.Tasks.Get(in.TaskID)
		if err != nil {
			return taskNotFound(err), nil
		}
		retrieval := "success"
		if in.Block && t.Status == background.StatusRunning {
			if t, err = env.Tasks.Wait(ctx, in.TaskID, time.Duration(wait)*time.Second); err != nil {
				return Errorf("stopped waiting for the task: the run is stopping"), nil
			}
		}
		if t.Status == background.StatusRunning {
			retrieval = "not_ready"
			if in.Block {
				retrieval = "timeout"
			}
		}
		p := env.Tasks.Preview(t)
		var b strings.Builder
		fmt.Fprintf(&b, "retrieval_status: %s\n%s\n", retrieval, taskLines(t))
		fmt.Fprintf(&b, "interrupted: %t\ntimed_out: %t\n", t.Interrupted(), t.TimedOut)
		if t.Status != background.StatusRunning {
			fmt.Fprintf(&b, "terminal_reason: %s\n", t.TerminalReason())
		}
		fmt.Fprintf(&b, "\noutput_path: %s\noutput_size_bytes: %d\noutput_preview_bytes: %d\noutput_truncated: %t\n",
			t.OutputPath, p.Size, len(p.Text), p.Truncated)
		if t.DroppedBytes > 0 {
			fmt.Fprintf(&b, "output_dropped_bytes: %d (past the file's limit of %d MiB: not kept)\n", t.DroppedBytes, background.OutputLimit>>20)
		}
		if p.Size > 0 {
			fmt.Fprintf(&b, "full_output_hint: the whole output is in output_path; read it in pages with ReadFile(path=%q, line_offset=1, n_lines=%d)\n", t.OutputPath, taskReadHintLines)
		}
		b.WriteString("\n[output]\n")
		switch {
		case p.Text == "" && t.Status == background.StatusRunning:
			b.WriteString("(no output yet)")
		case p.Text == "":
			b.WriteString("(no output)")
		case p.Truncated:
			fmt.Fprintf(&b, "[only the last %d bytes; all of it: %s]\n%s", len(p.Text), t.OutputPath, p.Text)
		default:
			b.WriteString(p.Text)
		}
		return taskOutputResult(b.String(), in.Block, retrieval), nil
	})
}

func taskOutputResult(text string, block bool, retrieval string) Result {
	msg := "Task output retrieved."
	if !block && retrieval == "not_ready" {
		msg = "Task snapshot retrieved."
	}
	return Text(text).WithKimi(msg, text)
}

// NewTaskStop returns the TaskStop tool over env.Tasks.
func NewTaskStop(env Env) Tool {
	return New("TaskStop", taskStopDescription, taskStopFacts, func(ctx context.Context, in taskStopArgs) (Result, error) {
		if r, ok := taskRefused(ctx, env.Tasks); !ok {
			return r, nil
		}
		before, err := env.Tasks.Get(in.TaskID)
		if err != nil {
			return taskNotFound(err), nil
		}
		reason := strings.TrimSpace(in.Reason)
		if reason == "" {
			reason = taskDefaultStopWhy
		}
		t, err := env.Tasks.Stop(in.TaskID, reason)
		if err != nil {
			return taskNotFound(err), nil
		}
		head := "The task was stopped."
		if before.Status != background.StatusRunning {
			head = "The task had ended already; nothing was stopped."
		}
		text := head + "\n" + taskLines(t)
		return Text(text).WithKimi("Task stop requested.", taskLines(t)), nil
	})
}

// taskRefused answers a task tool called where there are no tasks to manage: in a
// subagent, or in a run without background tasks.
func taskRefused(ctx context.Context, m *background.Manager) (Result, bool) {
	switch {
	case InSubagent(ctx):
		return Errorf("only the main agent has background tasks; a subagent runs its commands in the foreground").
			WithKimi("Background tasks can only be managed by the root agent.", ""), false
	case m == nil:
		return Errorf("%v", background.ErrNotAvailable).WithKimi("Background tasks are not available.", ""), false
	}
	return Result{}, true
}

// taskNotFound answers a task id the run does not know.
func taskNotFound(err error) Result {
	var nf *background.ErrNotFound
	if errors.As(err, &nf) {
		return Errorf("no background task %q in this run; TaskList lists them", nf.ID).WithKimi("Task not found: "+nf.ID, "")
	}
	return Errorf("%v", err)
}

// taskLines describes a task, one fact a line (Kimi CLI's keys).
func taskLines(t background.Task) string {
	lines := []string{"task_id: " + t.ID, "kind: " + background.Kind, "status: " + string(t.Status), "description: " + t.Description}
	if t.Command != "" {
		lines = append(lines, "command: "+t.Command)
	}
	if t.HasExit {
		lines = append(lines, fmt.Sprintf("exit_code: %d", t.ExitCode))
	}
	if t.StoppedBy != "" {
		lines = append(lines, "stopped_by: "+string(t.StoppedBy))
	}
	if t.Reason != "" {
		lines = append(lines, "reason: "+t.Reason)
	}
	return strings.Join(lines, "\n")
}

package event

// The event types of background tasks: Shell commands started with `run_in_background`,
// which run while the agent works.
const (
	TypeTaskStarted Type = "task_started"
	TypeTaskOutput  Type = "task_output"
	TypeTaskEnded   Type = "task_ended"
	TypeTaskWait    Type = "task_wait"
)

// TaskStarted reports a background task that has started: a Shell call with
// `run_in_background` true, before that call's `tool_result`.
type TaskStarted struct {
	// The task's id, which the model names in TaskOutput and TaskStop: `bash-` and eight
	// letters or digits.
	TaskID string `json:"task_id" minLength:"1"`
	// What runs: `bash`, a Shell command.
	Kind string `json:"kind" enum:"bash"`
	// The short description the model gave the task.
	Description string `json:"description"`
	// The command line, scrubbed of credentials.
	Command string `json:"command"`
	// The id of the Shell call that started the task.
	ToolCallID string `json:"tool_call_id"`
	// How long the task may run, in seconds, before it is stopped: the Shell call's
	// `timeout`, else `[background] agent_task_timeout_s`.
	TimeoutS int `json:"timeout_s" minimum:"1"`
	// The file that keeps the task's output (stdout and stderr together).
	OutputPath string `json:"output_path" minLength:"1"`
	// The task's process id, which is also its process group's.
	PID int `json:"pid" minimum:"1"`
	// Whether the task is kept running after the run ends (`[background]
	// keep_alive_on_exit`).
	KeepAlive bool `json:"keep_alive,omitempty"`
}

// Type is "task_started".
func (TaskStarted) Type() Type { return TypeTaskStarted }

// TaskOutput carries what a background task printed, whole lines at a time (a line longer
// than 4 KiB in pieces), as it prints it: the first 64 KiB of each task. The whole output,
// up to 64 MiB, is in the task's output file.
type TaskOutput struct {
	// The task's id, as in its `task_started`.
	TaskID string `json:"task_id" minLength:"1"`
	// The output, scrubbed of credentials as one stream: an end that may begin a credential's
	// form (its first characters, lines of base64 that may begin a wrapped one) waits for
	// what follows.
	Text string `json:"text"`
	// Set on the task's last `task_output` when its output went past what the events carry;
	// `text` is then empty and the rest is only in the output file.
	Truncated bool `json:"truncated,omitempty"`
}

// Type is "task_output".
func (TaskOutput) Type() Type { return TypeTaskOutput }

// TaskEnded reports a background task that has ended: by itself, at its timeout, stopped
// by the model (TaskStop), by the print-mode wait's ceiling or by the end of the run. A run
// that resumes a session writes one for each task an earlier run left running, with status
// `lost`.
type TaskEnded struct {
	// The task's id, as in its `task_started`.
	TaskID string `json:"task_id" minLength:"1"`
	// What ran: `bash`, a Shell command.
	Kind string `json:"kind" enum:"bash"`
	// The short description the model gave the task.
	Description string `json:"description"`
	// `completed` (exit status 0), `failed` (another status, a signal, or its timeout),
	// `killed` (stopped: see `stopped_by`) or `lost` (an earlier run started it and ended
	// first).
	Status string `json:"status" enum:"completed,failed,killed,lost"`
	// `status`, or `timed_out` for a task stopped at its timeout (its `status` is then
	// `failed`), as Kimi CLI's notification types say it.
	TerminalReason string `json:"terminal_reason" enum:"completed,failed,killed,lost,timed_out"`
	// The task's exit status; absent when it did not exit by itself (a signal).
	ExitCode *int `json:"exit_code,omitempty"`
	// Who stopped a `killed` task: `task_stop` (the model), `wait_ceiling` (the print-mode
	// wait reached `[background] print_wait_ceiling_s`) or `run_end` (the run ended first).
	StoppedBy string `json:"stopped_by,omitempty" enum:"task_stop,wait_ceiling,run_end"`
	// Why it failed or was stopped, in a few words.
	Reason string `json:"reason,omitempty"`
	// How long it ran, in milliseconds.
	DurationMS int64 `json:"duration_ms" minimum:"0" volatile:"true"`
	// The bytes of output kept in its output file.
	OutputBytes int64 `json:"output_bytes" minimum:"0"`
	// The bytes of output past the file's limit (64 MiB), counted and not kept; absent
	// when none.
	DroppedBytes int64 `json:"dropped_bytes,omitempty" minimum:"0"`
	// Kimi CLI's notification of the end, as its print mode writes it in the message
	// lines (`--print --output-format stream-json`); the model is told the same.
	Notification Notification `json:"notification"`
}

// Type is "task_ended".
func (TaskEnded) Type() Type { return TypeTaskEnded }

// Notification is Kimi CLI's Notification object (its wire type): what a background task's
// end tells the model and the reader of the stream.
type Notification struct {
	// The notification's id: `n` and eight hexadecimal digits.
	ID string `json:"id" pattern:"^n[0-9a-f]{8}$"`
	// Always `task`.
	Category string `json:"category" enum:"task"`
	// `task.` and the task's `terminal_reason`, e.g. `task.completed`.
	Type string `json:"type" enum:"task.completed,task.failed,task.killed,task.lost,task.timed_out"`
	// Always `background_task`.
	SourceKind string `json:"source_kind" enum:"background_task"`
	// The task's id.
	SourceID string `json:"source_id" minLength:"1"`
	// One line: what happened to which task.
	Title string `json:"title"`
	// The task's id, status, description, exit status and reason, a line each.
	Body string `json:"body"`
	// `success` (completed), `error` (failed, timed out) or `warning` (stopped, lost).
	Severity string `json:"severity" enum:"info,success,warning,error"`
	// When the notification was made, in seconds since 1970 (fractional).
	CreatedAt float64 `json:"created_at" minimum:"0"`
	// The task's facts as Kimi CLI lists them: `task_id`, `task_kind`, `status`,
	// `description`, `exit_code`, `interrupted`, `timed_out`, `terminal_reason`,
	// `failure_reason`, `finished_at`, `duration_s`.
	Payload map[string]any `json:"payload"`
}

// BackgroundTask is one background task in the result.
type BackgroundTask struct {
	// The task's id, as in its `task_started`.
	TaskID string `json:"task_id" minLength:"1"`
	// The short description the model gave it.
	Description string `json:"description"`
	// `running` (left running after the run: `pid`), or how it ended, as in `task_ended`.
	Status string `json:"status" enum:"running,completed,failed,killed,lost"`
	// Its exit status, when it exited by itself.
	ExitCode *int `json:"exit_code,omitempty"`
	// Set when it was stopped at its timeout.
	TimedOut bool `json:"timed_out,omitempty"`
	// Who stopped a `killed` task: `task_stop`, `wait_ceiling` or `run_end`.
	StoppedBy string `json:"stopped_by,omitempty" enum:"task_stop,wait_ceiling,run_end"`
	// Why it failed or was stopped.
	Reason string `json:"reason,omitempty"`
	// The process id of a task left running (its process group's too).
	PID int `json:"pid,omitempty" minimum:"1"`
	// The file that keeps its output.
	OutputPath string `json:"output_path" minLength:"1"`
}

// TaskWait reports, every `--heartbeat` (15 s by default), that the run has given its
// answer and waits for background tasks still running, before it stops them at
// `[background] print_wait_ceiling_s`: a sign of life that names what the run waits for.
type TaskWait struct {
	// The tasks still running, in the order they started.
	Tasks []WaitingTask `json:"tasks"`
	// How long the run has waited for them, in milliseconds.
	WaitedMS int64 `json:"waited_ms" minimum:"0"`
	// How long the run waits in all before it stops them, in milliseconds.
	CeilingMS int64 `json:"ceiling_ms" minimum:"0"`
}

// Type is "task_wait".
func (TaskWait) Type() Type { return TypeTaskWait }

// WaitingTask is one task a `task_wait` names.
type WaitingTask struct {
	// The task's id, as in its `task_started`.
	TaskID string `json:"task_id" minLength:"1"`
	// The short description the model gave it.
	Description string `json:"description"`
	// How long it has run, in milliseconds.
	ElapsedMS int64 `json:"elapsed_ms" minimum:"0"`
}

package background

import "time"

// Kimi CLI's defaults for the [background] keys kimi-run honours (its BackgroundConfig).
const (
	DefaultMaxRunning   = 4
	DefaultPreviewBytes = 30_000
	DefaultTailLines    = 20
	DefaultTailChars    = 3_000
	DefaultKillGrace    = 2 * time.Second
	DefaultTaskTimeout  = 900 * time.Second
	DefaultWaitCeiling  = 3600 * time.Second
)

// Limits of a task that are not settings.
const (
	// OutputLimit is how much of a task's output its file keeps; the rest is counted and
	// dropped, so a chatty server cannot fill the disk.
	OutputLimit = 64 << 20
	// EventOutputLimit is how much of a task's output task_output events carry; the rest is
	// only in the file. The stream is for watching a task start, not a copy of its log.
	EventOutputLimit = 64 << 10
	// MaxTimeout is the longest a task may ask to run (Kimi CLI's background limit: a day).
	MaxTimeout = 24 * time.Hour
	// noticesPerStep is how many ended tasks the model is told of before one step (as in
	// Kimi CLI); the rest wait for the next.
	noticesPerStep = 4
	// stopWait bounds how long a stop waits for a task's group to go after SIGKILL.
	stopWait = time.Second
)

// Config is the [background] keys kimi-run honours.
type Config struct {
	// MaxRunning is how many tasks may run at once (max_running_tasks).
	MaxRunning int
	// PreviewBytes is how much of a task's output TaskOutput shows, from its end
	// (read_max_bytes).
	PreviewBytes int
	// TailLines and TailChars bound the end of the output a notice quotes
	// (notification_tail_lines, notification_tail_chars).
	TailLines, TailChars int
	// KillGrace is the time between SIGTERM and SIGKILL when a task is stopped
	// (kill_grace_period_ms).
	KillGrace time.Duration
	// KeepAlive lets tasks outlive the run (keep_alive_on_exit).
	KeepAlive bool
	// TaskTimeout is how long a task may run when its Shell call gives no timeout
	// (agent_task_timeout_s).
	TaskTimeout time.Duration
	// WaitCeiling bounds the print-mode wait after the last turn (print_wait_ceiling_s;
	// AwaitAll).
	WaitCeiling time.Duration
}

// Defaults returns Kimi CLI's [background] defaults.
func Defaults() Config {
	return Config{MaxRunning: DefaultMaxRunning, PreviewBytes: DefaultPreviewBytes, TailLines: DefaultTailLines,
		TailChars: DefaultTailChars, KillGrace: DefaultKillGrace, TaskTimeout: DefaultTaskTimeout, WaitCeiling: DefaultWaitCeiling}
}

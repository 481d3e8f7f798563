package config

import (
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/tools/background"
)

// CIWaitCeiling is the most print mode waits for background tasks after its answer under
// CI=true, unless [background] print_wait_ceiling_s says otherwise.
const CIWaitCeiling = 10 * time.Minute

// backgroundConfig is [background], Kimi CLI's BackgroundConfig. Pointers tell a key the file
// sets (which must be within Kimi's bounds) from one it leaves out (Kimi's default).
type backgroundConfig struct {
	MaxRunningTasks           *int  `toml:"max_running_tasks" json:"max_running_tasks"`
	ReadMaxBytes              *int  `toml:"read_max_bytes" json:"read_max_bytes"`
	NotificationTailLines     *int  `toml:"notification_tail_lines" json:"notification_tail_lines"`
	NotificationTailChars     *int  `toml:"notification_tail_chars" json:"notification_tail_chars"`
	WaitPollIntervalMS        *int  `toml:"wait_poll_interval_ms" json:"wait_poll_interval_ms"`
	WorkerHeartbeatIntervalMS *int  `toml:"worker_heartbeat_interval_ms" json:"worker_heartbeat_interval_ms"`
	WorkerStaleAfterMS        *int  `toml:"worker_stale_after_ms" json:"worker_stale_after_ms"`
	KillGracePeriodMS         *int  `toml:"kill_grace_period_ms" json:"kill_grace_period_ms"`
	KeepAliveOnExit           *bool `toml:"keep_alive_on_exit" json:"keep_alive_on_exit"`
	AgentTaskTimeoutS         *int  `toml:"agent_task_timeout_s" json:"agent_task_timeout_s"`
	PrintWaitCeilingS         *int  `toml:"print_wait_ceiling_s" json:"print_wait_ceiling_s"`
}

// resolveBackground reads [background] over Kimi CLI's defaults into s.Background, refusing
// what Kimi refuses (its bounds), and warns of the keys kimi-run has no use for: Kimi runs
// each task under a worker process that it polls and that beats a heartbeat; kimi-run's
// tasks are its own children, whose end it is told of.
func (s *Settings) resolveBackground(bc backgroundConfig) error {
	b := background.Defaults()
	for _, k := range []struct {
		key   string
		v     *int
		least int
		set   func(int)
	}{
		{"max_running_tasks", bc.MaxRunningTasks, 1, func(n int) { b.MaxRunning = n }},
		{"read_max_bytes", bc.ReadMaxBytes, 1024, func(n int) { b.PreviewBytes = n }},
		{"notification_tail_lines", bc.NotificationTailLines, 1, func(n int) { b.TailLines = n }},
		{"notification_tail_chars", bc.NotificationTailChars, 256, func(n int) { b.TailChars = n }},
		{"wait_poll_interval_ms", bc.WaitPollIntervalMS, 50, nil},
		{"worker_heartbeat_interval_ms", bc.WorkerHeartbeatIntervalMS, 100, nil},
		{"worker_stale_after_ms", bc.WorkerStaleAfterMS, 1000, nil},
		{"kill_grace_period_ms", bc.KillGracePeriodMS, 100, func(n int) { b.KillGrace = time.Duration(n) * time.Millisecond }},
		{"agent_task_timeout_s", bc.AgentTaskTimeoutS, 60, func(n int) { b.TaskTimeout = time.Duration(n) * time.Second }},
		{"print_wait_ceiling_s", bc.PrintWaitCeilingS, 1, func(n int) { b.WaitCeiling = time.Duration(n) * time.Second }},
	} {
		if k.v == nil {
			continue
		}
		if *k.v < k.least {
			return Usagef("config: background.%s must be at least %d, got %d", k.key, k.least, *k.v)
		}
		if k.set != nil {
			k.set(*k.v)
		}
	}
	if bc.PrintWaitCeilingS == nil && onCI(s.Env) {
		// A leftover server must not hold a CI job for an hour.
		b.WaitCeiling = min(b.WaitCeiling, CIWaitCeiling)
	}
	b.KeepAlive = deref(bc.KeepAliveOnExit)
	var unused []string
	for _, k := range []struct {
		key string
		v   *int
	}{
		{"wait_poll_interval_ms", bc.WaitPollIntervalMS},
		{"worker_heartbeat_interval_ms", bc.WorkerHeartbeatIntervalMS},
		{"worker_stale_after_ms", bc.WorkerStaleAfterMS},
	} {
		if k.v != nil {
			unused = append(unused, "background."+k.key)
		}
	}
	if len(unused) > 0 {
		s.Warnings = append(s.Warnings, "config: "+strings.Join(unused, ", ")+
			" has no effect in kimi-run: its background tasks are its own child processes, whose end it is told of, with no worker to poll or watch")
	}
	s.Background = b
	return nil
}

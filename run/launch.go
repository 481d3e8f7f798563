package run

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/mcp"
)

// defaultTaskLimit bounds the tasks (processes and threads) of a sandboxed run's children
// together where a pids controller can be had: far above what a parallel build uses, far
// below the 32768 process ids many machines have, so a fork loop ends in EAGAIN instead
// of taking the machine.
const defaultTaskLimit = 8192

// taskLimit reads KIMI_RUN_TASK_LIMIT: a number of tasks, 0 for no limit, empty for the
// default.
func taskLimit(v string) (int, error) {
	if v == "" {
		return defaultTaskLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, usagef("KIMI_RUN_TASK_LIMIT=%q: want a number of tasks, or 0 for no limit", v)
	}
	return n, nil
}

// configure gives the launcher the run's sandbox.
func (s *sandboxPlan) configure(l *launch.Launcher) {
	l.Policy = s.policy
	s.launcher.Store(l)
	if s.policy.Active() {
		l.TaskLimit = s.taskLimit
	}
}

// writable are the directories the run's commands may write, whether or not the sandbox
// restricts them: the work dir, the --add-dir dirs, the run's temp dir.
func (s *sandboxPlan) writable() []string {
	dirs := append([]string(nil), s.policy.Writable...)
	if s.tempDir != "" {
		dirs = append(dirs, s.tempDir)
	}
	return dirs
}

// ripgrep is the rg Grep and Glob run: found on path, never in a directory the run's
// commands may write (an rg planted there by one run must not run in the next).
func (s *sandboxPlan) ripgrep(path string) string {
	return tools.LookRipgrep(path, s.writable()...)
}

// confineServers decides which stdio MCP servers run confined: under a sandbox, every one,
// like a Shell command, but those the user's config file names in [sandbox]
// trusted_mcp_servers. A trust is believed only when neither that file nor the mcp.json
// that defines the server lies in the work dir or an --add-dir, where a confined command
// (of this run, or of an earlier one) may have written it; a trust not believed is a
// warning. No guess is made from the server's command, arguments or environment.
func (s *sandboxPlan) confineServers(m config.MCP, warn func(string)) config.MCP {
	if !s.policy.Active() {
		return m
	}
	servers := make([]mcp.Server, len(m.Servers))
	for i, srv := range m.Servers {
		if srv.Transport == mcp.Stdio {
			srv.Confine = !s.trusted(srv.Name, m, warn)
		}
		servers[i] = srv
	}
	m.Servers = servers
	return m
}

// trusted reports whether the server name may run unconfined, warning when its trust
// comes from a file a confined command may have written.
func (s *sandboxPlan) trusted(name string, m config.MCP, warn func(string)) bool {
	if !slices.Contains(m.Trusted, name) {
		return false
	}
	for _, f := range []string{m.TrustedIn, m.In[name]} {
		if f != "" && s.underWorkDirs(f) {
			warn(fmt.Sprintf("MCP server %q runs confined although trusted: %s lies in the work dir or an --add-dir, which the run's commands may write; name the server in sandbox.trusted_mcp_servers, and define it, in files outside them (~/.kimi/config.toml and ~/.kimi/mcp.json, say)", name, f))
			return false
		}
	}
	return true
}

// underWorkDirs reports whether path (its links resolved) lies beneath the work dir or an
// --add-dir, whatever this run's mode lets commands write there. A path that cannot be
// resolved counts as beneath.
func (s *sandboxPlan) underWorkDirs(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return true
	}
	var outside *sandbox.DeniedError
	return !errors.As(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: s.policy.Writable}.CanWrite(abs), &outside)
}

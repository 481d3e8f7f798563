package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/launch"
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

// confineServers decides which stdio MCP servers run confined. Under a sandbox a server
// runs confined like a Shell command unless nothing it runs from can have been written by
// a confined command: its program, its working directory, every existing file or
// directory an argument names, every PATH entry it gets and every path in its own env
// entries lie outside the directories the sandbox lets commands write (with the file
// system unrestricted, that is nowhere). A server kept in the work dir, or started there
// (the default cwd), runs confined: a Shell call may have rewritten it, or planted what
// it loads. path is kimi-run's PATH, where its program is looked up; env is the run's
// environment for children.
func (s *sandboxPlan) confineServers(m config.MCP, path string, env []string) config.MCP {
	if !s.policy.Active() {
		return m
	}
	servers := make([]mcp.Server, len(m.Servers))
	for i, srv := range m.Servers {
		if srv.Transport == mcp.Stdio {
			srv.Confine = s.touchable(srv, path, env)
		}
		servers[i] = srv
	}
	m.Servers = servers
	return m
}

// touchable reports whether anything srv runs from may have been written by a confined
// command.
func (s *sandboxPlan) touchable(srv mcp.Server, path string, env []string) bool {
	writable := func(p string) bool { return s.policy.CanWrite(p) == nil }
	dir := srv.Dir
	if dir == "" {
		dir = s.workDir
	}
	if writable(dir) {
		return true
	}
	prog := srv.Command
	if !strings.Contains(prog, "/") {
		if p, err := lookIn(prog, path); err == nil {
			prog = p
		}
	}
	if !filepath.IsAbs(prog) {
		prog = filepath.Join(dir, prog)
	}
	if writable(prog) {
		return true
	}
	for _, a := range srv.Args {
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v // --flag=value
		}
		if a == "" {
			continue
		}
		if !filepath.IsAbs(a) {
			a = filepath.Join(dir, a)
		}
		if _, err := os.Stat(a); err == nil && writable(a) {
			return true
		}
	}
	serverPath := getenvIn(env, "PATH")
	for _, kv := range srv.Env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "PATH" {
			serverPath = v
		}
		for _, p := range filepath.SplitList(v) {
			if filepath.IsAbs(p) && writable(p) {
				return true
			}
		}
	}
	for _, p := range filepath.SplitList(serverPath) {
		if p == "" || !filepath.IsAbs(p) || writable(p) {
			return true
		}
	}
	return false
}

// lookIn finds prog on the PATH value path, as exec.LookPath does on PATH.
func lookIn(prog, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, prog)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// getenvIn is the value of name in env.
func getenvIn(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

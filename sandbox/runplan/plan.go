// Package runplan is a run's sandbox as its flags ask for it: the Landlock policy the
// launcher confines the run's children with, the run's private temp dir, --allow-host's
// proxy, and the same policy checked in kimi-run's own process for the file tools and
// FetchURL. run/ resolves the flags and wires the plan in; what the sandbox allows is
// decided here.
package runplan

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kimi-run/kimi-run/internal/hostproxy"
	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/internal/launch/launcher"
	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/tools"
)

// Options are the sandbox's settings as the run resolved them.
type Options struct {
	// Mode is --sandbox; "" is off.
	Mode sandbox.Mode
	// NoNetwork is --sandbox-network off.
	NoNetwork bool
	// Rules are --allow-host's, ProxyPort --allow-host-port.
	Rules     []hostproxy.Rule
	ProxyPort int
	// WorkDir is the run's, absolute; AddDirs the --add-dir dirs as given.
	WorkDir string
	AddDirs []string
	// Getenv reads KIMI_RUN_TASK_LIMIT, KIMI_RUN_NS, KIMI_RUN_NETNS and HOME.
	Getenv func(string) string
}

// Plan is the run's sandbox. A nil *Plan is never handed out; the zero policy is off.
type Plan struct {
	policy  sandbox.Policy
	workDir string
	// addDirs are the --add-dir dirs outside the work dir (addDirs).
	addDirs []string
	// tempDir is the run's private temp dir, removed when the run ends.
	tempDir string
	// taskLimit bounds the tasks of the run's children under the sandbox
	// (KIMI_RUN_TASK_LIMIT).
	taskLimit int
	// proxy is --allow-host's, nil without; isolated says the confined arm gets a network
	// namespace of its own, and gap, when it does not, why.
	proxy    *hostproxy.Proxy
	rules    []hostproxy.Rule
	isolated bool
	gap      error
	// refused hears of the proxy's refusals once the run's events flow.
	refused atomic.Pointer[func(hostproxy.Refusal)]
	// launcher is the run's, once Configure has it: its confined arms are the only
	// processes the proxy's socket serves.
	launcher atomic.Pointer[launch.Launcher]
}

// New checks the settings and this system. A sandbox that was asked for and cannot be had
// is an error (the caller's usage error, exit 2): never a silently unconfined run.
func New(o Options) (*Plan, error) {
	dirs, err := addDirs(o.WorkDir, o.AddDirs)
	if err != nil {
		return nil, err
	}
	s := &Plan{workDir: o.WorkDir, addDirs: dirs}
	mode := o.Mode
	if mode == "" {
		mode = sandbox.Off
	}
	s.policy = sandbox.Policy{Mode: mode, Writable: append([]string{o.WorkDir}, dirs...), NoNetwork: o.NoNetwork || len(o.Rules) > 0}
	if !s.policy.Active() {
		return s, nil
	}
	if err := sandbox.Check(s.policy); err != nil {
		flag := "--sandbox " + string(mode)
		switch {
		case mode == sandbox.Off && len(o.Rules) > 0:
			flag = "--allow-host"
		case mode == sandbox.Off:
			flag = "--sandbox-network off"
		}
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	// The launcher is this very executable, reached through /proc/self/exe rather than by
	// its path: a sandboxed command may replace the file at the path (kimi-run built into
	// the work dir, or in an --add-dir), but not the running image, which the kernel keeps
	// and refuses to let anyone write while it runs.
	if _, err := os.Stat(sandbox.SelfExe); err != nil {
		return nil, fmt.Errorf("--sandbox: cannot reach kimi-run's own executable to confine commands with: %w", err)
	}
	if s.taskLimit, err = taskLimit(o.Getenv("KIMI_RUN_TASK_LIMIT")); err != nil {
		return nil, err
	}
	// Namespaces for the commands where the machine allows them (the launcher warns of
	// each part it refuses, or KIMI_RUN_NS leaves out); KIMI_RUN_NS=off asks for none.
	if s.policy.Namespaces, s.policy.NSOmit, err = launcher.ParseNS(o.Getenv("KIMI_RUN_NS")); err != nil {
		return nil, fmt.Errorf("KIMI_RUN_NS: %w", err)
	}
	s.policy.Home = o.Getenv("HOME")
	if mode != sandbox.Off {
		tmp, err := os.MkdirTemp("", "kimi-run-sandbox-")
		if err != nil {
			return nil, fmt.Errorf("--sandbox: cannot create the run's temp dir: %w", err)
		}
		s.tempDir, s.policy.TempDir = tmp, tmp
	}
	if len(o.Rules) > 0 {
		if err := s.startProxy(o.Rules, o.ProxyPort, o.Getenv("KIMI_RUN_NETNS") == "off"); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

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
		return 0, fmt.Errorf("KIMI_RUN_TASK_LIMIT=%q: want a number of tasks, or 0 for no limit", v)
	}
	return n, nil
}

// startProxy starts --allow-host's proxy and decides how commands reach it: from a network
// namespace of their own where this machine allows one (noNetNS, KIMI_RUN_NETNS=off, says
// not to try), else straight to its port on 127.0.0.1.
func (s *Plan) startProxy(rules []hostproxy.Rule, port int, noNetNS bool) error {
	p, err := hostproxy.Start(rules, port, func(r hostproxy.Refusal) {
		if f := s.refused.Load(); f != nil {
			(*f)(r)
		}
	}, func(pid int) bool { return s.launcher.Load().IsArm(pid) })
	if err != nil {
		return fmt.Errorf("--allow-host: %w", err)
	}
	s.proxy, s.rules = p, rules
	s.policy.ProxyPort = p.Port()
	s.gap = errors.New("KIMI_RUN_NETNS=off")
	if !noNetNS {
		s.gap = launcher.NetNSWorks(sandbox.SelfExe)
	}
	if s.isolated = s.gap == nil; s.isolated {
		s.policy.ProxySocket = p.Socket()
	}
	return nil
}

// Configure gives the launcher the run's sandbox.
func (s *Plan) Configure(l *launch.Launcher) {
	l.Policy = s.policy
	s.launcher.Store(l)
	if s.policy.Active() {
		l.TaskLimit = s.taskLimit
	}
}

// OnRefusal reports each host:port the proxy refuses, once, through warn.
func (s *Plan) OnRefusal(warn func(string)) {
	var mu sync.Mutex
	seen := map[string]bool{}
	f := func(r hostproxy.Refusal) {
		key := fmt.Sprintf("%s:%d", r.Host, r.Port)
		mu.Lock()
		first := !seen[key]
		seen[key] = true
		mu.Unlock()
		if first {
			warn(fmt.Sprintf("the sandbox refused a connection to %s: %s", key, r.Reason))
		}
	}
	s.refused.Store(&f)
}

// Notes are the warnings of the plan's gaps: commands not isolated from other hosts on the
// proxy's port; commands asked to run without namespaces of their own.
func (s *Plan) Notes() []string {
	var out []string
	if s.proxy != nil && !s.isolated {
		out = append(out, fmt.Sprintf("--allow-host: commands cannot be given a network namespace of their own here (%v), so any host listening on port %d, the proxy's, is reachable from them too; see docs/sandbox.md", s.gap, s.policy.ProxyPort))
	}
	if s.policy.Active() && !s.policy.Namespaces {
		out = append(out, launcher.NoNamespacesNote("KIMI_RUN_NS=off"))
	}
	return out
}

// ProxyURL is the proxy FetchURL goes through, nil without --allow-host.
func (s *Plan) ProxyURL() *url.URL {
	if s.proxy == nil {
		return nil
	}
	u, _ := url.Parse(s.proxy.URL())
	return u
}

// Close stops the proxy and removes the run's temp dir.
func (s *Plan) Close() {
	if s == nil {
		return
	}
	if s.proxy != nil {
		s.proxy.Close()
	}
	if s.tempDir != "" {
		os.RemoveAll(s.tempDir)
	}
}

// Active reports whether the sandbox restricts anything.
func (s *Plan) Active() bool { return s.policy.Active() }

// AddDirs are the --add-dir dirs, absolute, once each, without those inside the work dir.
func (s *Plan) AddDirs() []string { return s.addDirs }

// TempDir is the run's private temp dir, "" when the file system is not restricted.
func (s *Plan) TempDir() string { return s.tempDir }

// CanWrite is the sandbox's check of a file kimi-run writes for the run itself (what a
// rewind puts back): nil when the policy allows it, or restricts no writes.
func (s *Plan) CanWrite(path string) error { return s.policy.CanWrite(path) }

// WriteDirs is tools.Env.WriteDirs: the policy, which opens the write tools' directories
// beneath the writable roots; nil when the file system is not restricted.
func (s *Plan) WriteDirs() tools.DirOpener {
	if s.restrictsWrites() {
		return s.policy
	}
	return nil
}

// restrictsWrites reports whether the plan confines where the run writes.
func (s *Plan) restrictsWrites() bool {
	return s.policy.Mode == sandbox.ReadOnly || s.policy.Mode == sandbox.WorkspaceWrite
}

// Ripgrep is the rg Grep and Glob run: found on path, never in a directory the run's
// commands may write (an rg planted there by one run must not run in the next): the work
// dir, the --add-dir dirs, the run's temp dir, whether or not the sandbox restricts them.
func (s *Plan) Ripgrep(path string) string {
	dirs := append([]string(nil), s.policy.Writable...)
	if s.tempDir != "" {
		dirs = append(dirs, s.tempDir)
	}
	return tools.LookRipgrep(path, dirs...)
}

// PromptNote tells the model what the sandbox allows, in place of the system prompt's note
// that nothing is sandboxed; empty without a sandbox.
func (s *Plan) PromptNote() string {
	if !s.policy.Active() {
		return ""
	}
	var parts []string
	if s.policy.Mode != sandbox.Off {
		parts = append(parts, fmt.Sprintf("Commands and file tools run in a sandbox (%s): they may read anything but write only below %s (the last is the temp dir, also in $TMPDIR); any other write fails with \"Permission denied\" or \"Read-only file system\".",
			s.policy.Mode, strings.Join(s.policy.WritableRoots(), ", ")))
		if s.policy.Namespaces && !slices.Contains(s.policy.NSOmit, launcher.NSTmp) && !slices.Contains(s.policy.NSOmit, launcher.NSUser) {
			parts = append(parts, fmt.Sprintf("Commands may have a %s of their own, in which only these dirs and HOME are in sight.", filepath.Dir(s.tempDir)))
		}
	}
	switch {
	case s.policy.Proxy():
		parts = append(parts, fmt.Sprintf("The network is cut but for these hosts: %s. Commands reach them through the proxy in HTTP_PROXY and HTTPS_PROXY (curl, git, pip, npm and most tools use it; a connection made without it fails), and FetchURL reaches them too.", s.allowed()))
	case s.policy.NoNetwork:
		parts = append(parts, "The network is cut: commands cannot open or accept TCP connections, and FetchURL is refused.")
	}
	return strings.Join(parts, " ")
}

// allowed lists --allow-host's rules for the system prompt.
func (s *Plan) allowed() string {
	names := make([]string, len(s.rules))
	for i, r := range s.rules {
		names[i] = r.String()
		if r.Port == 0 {
			names[i] += " (ports 80 and 443)"
		}
	}
	return strings.Join(names, ", ")
}

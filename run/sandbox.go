package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/hostproxy"
	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/policy"
)

// sandboxPlan is the run's --sandbox and --sandbox-network: the Landlock policy the
// launcher confines the run's children with, and the same policy checked in-process for
// the file tools and FetchURL.
type sandboxPlan struct {
	policy  sandbox.Policy
	workDir string
	// tempDir is the run's private temp dir, removed when the run ends.
	tempDir string
	// taskLimit bounds the tasks of the run's children under the sandbox
	// (KIMI_RUN_TASK_LIMIT).
	taskLimit int
	// proxy is --allow-host's (issue 32 #8), nil without; isolated says the confined arm
	// gets a network namespace of its own, and gap, when it does not, why.
	proxy    *hostproxy.Proxy
	rules    []hostproxy.Rule
	isolated bool
	gap      error
	// refused hears of the proxy's refusals once the run's events flow.
	refused atomic.Pointer[func(hostproxy.Refusal)]
	// launcher is the run's, once configure has it: its confined arms are the only
	// processes the proxy's socket serves.
	launcher atomic.Pointer[launch.Launcher]
}

// planSandbox checks the flags and this system. A sandbox that was asked for and cannot be
// had is a usage error (exit 2): never a silently unconfined run.
func planSandbox(set *config.Settings) (*sandboxPlan, error) {
	cli, workDir := &set.Flags, set.WorkDir
	s := &sandboxPlan{workDir: workDir}
	dirs, err := addDirs(set)
	if err != nil {
		return nil, err
	}
	mode := sandbox.Mode(cli.Sandbox)
	if mode == "" {
		mode = sandbox.Off
	}
	rules, err := hostproxy.ParseRules(cli.AllowHost)
	if err != nil {
		return nil, usagef("%s: %v", cli.From("allow-host"), err)
	}
	s.policy = sandbox.Policy{Mode: mode, Writable: append([]string{workDir}, dirs...), NoNetwork: cli.SandboxNetwork == "off" || len(rules) > 0}
	if !s.policy.Active() {
		return s, nil
	}
	if err := sandbox.Check(s.policy); err != nil {
		flag := "--sandbox " + cli.Sandbox
		switch {
		case mode == sandbox.Off && len(rules) > 0:
			flag = "--allow-host"
		case mode == sandbox.Off:
			flag = "--sandbox-network off"
		}
		return nil, usagef("%s: %w", flag, err)
	}
	// The launcher is this very executable, reached through /proc/self/exe rather than by
	// its path: a sandboxed command may replace the file at the path (kimi-run built into
	// the work dir, or in an --add-dir), but not the running image, which the kernel keeps
	// and refuses to let anyone write while it runs.
	if _, err := os.Stat(sandbox.SelfExe); err != nil {
		return nil, usagef("--sandbox: cannot reach kimi-run's own executable to confine commands with: %w", err)
	}
	if s.taskLimit, err = taskLimit(set.Env.Getenv("KIMI_RUN_TASK_LIMIT")); err != nil {
		return nil, err
	}
	// Namespaces for the commands where the machine allows them (the launcher warns of
	// each part it refuses, or KIMI_RUN_NS leaves out); KIMI_RUN_NS=off asks for none.
	if s.policy.Namespaces, s.policy.NSOmit, err = launch.ParseNS(set.Env.Getenv("KIMI_RUN_NS")); err != nil {
		return nil, usagef("KIMI_RUN_NS: %w", err)
	}
	s.policy.Home = set.Env.Getenv("HOME")
	if mode != sandbox.Off {
		tmp, err := os.MkdirTemp("", "kimi-run-sandbox-")
		if err != nil {
			return nil, usagef("--sandbox: cannot create the run's temp dir: %w", err)
		}
		s.tempDir, s.policy.TempDir = tmp, tmp
	}
	if len(rules) > 0 {
		if err := s.startProxy(rules, cli.AllowHostPort, set.Env.Getenv("KIMI_RUN_NETNS") == "off"); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

// startProxy starts --allow-host's proxy and decides how commands reach it: from a network
// namespace of their own where this machine allows one (noNetNS, KIMI_RUN_NETNS=off, says
// not to try), else straight to its port on 127.0.0.1.
func (s *sandboxPlan) startProxy(rules []hostproxy.Rule, port int, noNetNS bool) error {
	p, err := hostproxy.Start(rules, port, func(r hostproxy.Refusal) {
		if f := s.refused.Load(); f != nil {
			(*f)(r)
		}
	}, func(pid int) bool { return s.launcher.Load().IsArm(pid) })
	if err != nil {
		return usagef("--allow-host: %w", err)
	}
	s.proxy, s.rules = p, rules
	s.policy.ProxyPort = p.Port()
	s.gap = errors.New("KIMI_RUN_NETNS=off")
	if !noNetNS {
		s.gap = launch.NetNSWorks(sandbox.SelfExe)
	}
	if s.isolated = s.gap == nil; s.isolated {
		s.policy.ProxySocket = p.Socket()
	}
	return nil
}

// onRefusal reports each host:port the proxy refuses, once, through warn.
func (s *sandboxPlan) onRefusal(warn func(string)) {
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

// proxyNote is the warning of a run whose commands are not isolated from other hosts on
// the proxy's port, or "".
func (s *sandboxPlan) proxyNote() string {
	if s.proxy == nil || s.isolated {
		return ""
	}
	return fmt.Sprintf("--allow-host: commands cannot be given a network namespace of their own here (%v), so any host listening on port %d, the proxy's, is reachable from them too; see docs/sandbox.md", s.gap, s.policy.ProxyPort)
}

// nsNote is the warning of a sandboxed run whose commands were asked to run without
// namespaces of their own, or "".
func (s *sandboxPlan) nsNote() string {
	if !s.policy.Active() || s.policy.Namespaces {
		return ""
	}
	return launch.NoNamespacesNote("KIMI_RUN_NS=off")
}

// allowed lists --allow-host's rules for the system prompt.
func (s *sandboxPlan) allowed() string {
	names := make([]string, len(s.rules))
	for i, r := range s.rules {
		names[i] = r.String()
		if r.Port == 0 {
			names[i] += " (ports 80 and 443)"
		}
	}
	return strings.Join(names, ", ")
}

// proxyURL is the proxy FetchURL goes through, nil without --allow-host.
func (s *sandboxPlan) proxyURL() *url.URL {
	if s.proxy == nil {
		return nil
	}
	u, _ := url.Parse(s.proxy.URL())
	return u
}

// close stops the proxy and removes the run's temp dir.
func (s *sandboxPlan) close() {
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

// canWrite is the sandbox's check of a file kimi-run writes for the run itself (what a
// rewind puts back): nil when the policy allows it, or restricts no writes.
func (s *sandboxPlan) canWrite(path string) error { return s.policy.CanWrite(path) }

// writeDirs is tools.Env.WriteDirs: the policy, which opens the write tools' directories
// beneath the writable roots; nil when the file system is not restricted.
func (s *sandboxPlan) writeDirs() tools.DirOpener {
	if s.policy.Mode == sandbox.ReadOnly || s.policy.Mode == sandbox.WorkspaceWrite {
		return s.policy
	}
	return nil
}

// guardTools wraps the tools that act in kimi-run's process with the checks the kernel
// makes for commands, as their facts ask: a write outside the writable roots, and the
// network while it is cut. Commands are confined by the kernel itself (the launcher); what
// Shell's were refused is reported from their output (refusedWrites). MCP servers are
// confined as confineServers decides (docs/sandbox.md); reading is allowed everywhere in
// every mode.
func (s *sandboxPlan) guardTools(ts []tools.Tool, deny func(policy.Denial)) []tools.Tool {
	if !s.policy.Active() {
		return ts
	}
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = t
		if check := s.checkFor(t.Facts()); check != nil {
			out[i] = &confined{Tool: t, check: check, deny: deny}
		}
		if t.Facts().Where == tools.InCommand && s.refusesCommandWrites() {
			out[i] = refusedWrites{Tool: t, plan: s}
		}
	}
	return out
}

// checkFor returns the check a tool with facts f needs under this sandbox, or nil.
func (s *sandboxPlan) checkFor(f tools.Facts) func(json.RawMessage) error {
	inProcess := f.Where == tools.InProcess
	write := inProcess && f.WritesFiles && s.policy.Mode != sandbox.Off
	// Under --allow-host FetchURL goes through the proxy, which decides.
	network := inProcess && f.Network && s.policy.NoNetwork && !s.policy.Proxy()
	if !write && !network {
		return nil
	}
	return func(args json.RawMessage) error {
		if write {
			if err := s.checkWrite(f.PathArg, args); err != nil {
				return err
			}
		}
		if network {
			return fmt.Errorf("the network is cut for this run (--sandbox-network off)")
		}
		return nil
	}
}

// checkWrite resolves a write tool's path argument key as the tool does and checks it. An
// argument the tool would reject anyway is left to the tool; a tool that names no path
// argument cannot be allowed, as nothing says where it writes.
func (s *sandboxPlan) checkWrite(key string, args json.RawMessage) error {
	if key == "" {
		return fmt.Errorf("the sandbox (%s) cannot tell where this tool writes", s.policy.Mode)
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(args, &fields) != nil {
		return nil
	}
	var p string
	if json.Unmarshal(fields[key], &p) != nil {
		return nil
	}
	abs, err := tools.ResolvePath(s.workDir, p)
	if err != nil {
		return nil
	}
	return s.policy.CanWrite(abs)
}

// confined is a tool whose calls the sandbox checks first.
type confined struct {
	tools.Tool
	check func(json.RawMessage) error
	deny  func(policy.Denial)
}

// Run implements tools.Tool.
func (c *confined) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	if err := c.check(args); err != nil {
		msg := fmt.Sprintf("not run: %v. The sandbox is set by the caller; do the task within it, or say in your final answer what could not be done.", err)
		if c.deny != nil {
			c.deny(policy.Denial{CallID: tools.CallID(ctx), Tool: c.Name(), Rule: "sandbox", Reason: msg})
		}
		return tools.Result{Output: msg, IsError: true}.Deny(tools.DeniedBySandbox, "sandbox"), nil
	}
	return c.Tool.Run(ctx, args)
}

// promptNote tells the model what the sandbox allows, in place of the system prompt's note
// that nothing is sandboxed; empty without a sandbox.
func (s *sandboxPlan) promptNote() string {
	if !s.policy.Active() {
		return ""
	}
	var parts []string
	if s.policy.Mode != sandbox.Off {
		parts = append(parts, fmt.Sprintf("Commands and file tools run in a sandbox (%s): they may read anything but write only below %s (the last is the temp dir, also in $TMPDIR); any other write fails with \"Permission denied\" or \"Read-only file system\".",
			s.policy.Mode, strings.Join(s.policy.WritableRoots(), ", ")))
		if s.policy.Namespaces && !slices.Contains(s.policy.NSOmit, launch.NSTmp) && !slices.Contains(s.policy.NSOmit, launch.NSUser) {
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

// rootWarning is the warning for a run as root outside a container with the sandbox off,
// or "". A container is recognised by /.dockerenv (Docker), /run/.containerenv (Podman),
// KUBERNETES_SERVICE_HOST (any Kubernetes pod), the container variable (systemd-nspawn,
// LXC, Podman) or a container runtime in /proc/1/cgroup. KIMI_RUN_NO_ROOT_WARNING=1
// silences it.
func rootWarning(mode string, euid int, getenv func(string) string, exists func(string) bool, readFile func(string) ([]byte, error)) string {
	if mode != "" && mode != string(sandbox.Off) || euid != 0 || getenv("KIMI_RUN_NO_ROOT_WARNING") != "" {
		return ""
	}
	if exists("/.dockerenv") || exists("/run/.containerenv") || getenv("KUBERNETES_SERVICE_HOST") != "" || getenv("container") != "" {
		return ""
	}
	if cg, err := readFile("/proc/1/cgroup"); err == nil {
		for _, hint := range []string{"docker", "kubepods", "containerd", "libpod", "lxc", "podman", "buildkit"} {
			if strings.Contains(string(cg), hint) {
				return ""
			}
		}
	}
	return "running as root outside a container with no sandbox: every tool call runs with root's rights (consider --sandbox workspace-write, or a container)"
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

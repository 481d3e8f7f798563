package run

import (
	"fmt"
	"slices"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/hostproxy"
	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/sandbox/runplan"
	"github.com/kimi-run/kimi-run/tools/mcp"
)

// planSandbox reads the sandbox flags into the run's sandbox (sandbox/runplan). A sandbox
// that was asked for and cannot be had is a usage error (exit 2).
func planSandbox(set *config.Settings) (*runplan.Plan, error) {
	cli := &set.Flags
	rules, err := hostproxy.ParseRules(cli.AllowHost)
	if err != nil {
		return nil, usagef("%s: %v", cli.From("allow-host"), err)
	}
	p, err := runplan.New(runplan.Options{
		Mode: sandbox.Mode(cli.Sandbox), NoNetwork: cli.SandboxNetwork == "off", Rules: rules, ProxyPort: cli.AllowHostPort,
		WorkDir: set.WorkDir, AddDirs: cli.AddDir, Getenv: set.Env.Getenv,
	})
	if err != nil {
		return nil, usagef("%w", err)
	}
	return p, nil
}

// confineServers decides which stdio MCP servers run confined: under a sandbox, every one,
// like a Shell command, but those the user's config file names in [sandbox]
// trusted_mcp_servers. A trust is believed only when neither that file nor the mcp.json
// that defines the server lies in the work dir or an --add-dir, where a confined command
// (of this run, or of an earlier one) may have written it; a trust not believed is a
// warning. No guess is made from the server's command, arguments or environment.
func confineServers(p *runplan.Plan, m config.MCP, warn func(string)) config.MCP {
	if !p.Active() {
		return m
	}
	servers := make([]mcp.Server, len(m.Servers))
	for i, srv := range m.Servers {
		if srv.Transport == mcp.Stdio {
			srv.Confine = !trusted(p, srv.Name, m, warn)
		}
		servers[i] = srv
	}
	m.Servers = servers
	return m
}

// trusted reports whether the server name may run unconfined, warning when its trust
// comes from a file a confined command may have written.
func trusted(p *runplan.Plan, name string, m config.MCP, warn func(string)) bool {
	if !slices.Contains(m.Trusted, name) {
		return false
	}
	for _, f := range []string{m.TrustedIn, m.In[name]} {
		if f != "" && p.UnderWorkDirs(f) {
			warn(fmt.Sprintf("MCP server %q runs confined although trusted: %s lies in the work dir or an --add-dir, which the run's commands may write; name the server in sandbox.trusted_mcp_servers, and define it, in files outside them (~/.kimi/config.toml and ~/.kimi/mcp.json, say)", name, f))
			return false
		}
	}
	return true
}

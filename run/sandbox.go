package run

import (
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/hostproxy"
	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/sandbox/runplan"
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

// confineServers is the MCP configuration m with each stdio server confined as the sandbox
// decides (runplan.Plan.ConfineServers).
func confineServers(p *runplan.Plan, m config.MCP, warn func(string)) config.MCP {
	m.Servers = p.ConfineServers(m.Servers, runplan.Trust{Names: m.Trusted, NamedIn: m.TrustedIn, DefinedIn: m.In}, warn)
	return m
}

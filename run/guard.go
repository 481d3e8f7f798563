package run

import (
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/sandbox/runplan"
	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/policy"
)

// guard holds the rules a run puts on its tools: --tools, --allowed-tools and
// --disallowed-tools (and the sandbox's in-process checks, sandbox/runplan).
type guard struct {
	rules   policy.Policy
	sandbox *runplan.Plan
}

// newGuard reads the tool-rule flags and the sandbox flags. Bad rules are usage errors.
func newGuard(s *config.Settings) (*guard, error) {
	f := &s.Flags
	rules, err := policy.FromFlags(f.AllowedTools, f.DisallowedTools, f.Tools)
	if err != nil {
		return nil, usagef("%w", err)
	}
	sandbox, err := planSandbox(s)
	if err != nil {
		return nil, err
	}
	return &guard{rules: rules, sandbox: sandbox}, nil
}

// check refuses rules that match no tool of the run (policy.Policy.CheckNames): a usage
// error.
func (g *guard) check(known []string, aliases map[string]string) error {
	if err := g.rules.CheckNames(known, aliases); err != nil {
		return usagef("%w", err)
	}
	return nil
}

// wrap filters and wraps a toolset: the root's, once every tool (MCP tools included) is in
// it, and each subagent kind's.
func (g *guard) wrap(ts []tools.Tool) []tools.Tool {
	// A refusal marks its result (tools.Result.Denied), which the agent reports.
	return g.sandbox.Guard(g.rules.Apply(ts, nil), nil)
}

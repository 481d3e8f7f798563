package run

import (
	"strings"

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
	cli := &s.Flags
	g := &guard{rules: policy.Policy{Source: "--allowed-tools/--disallowed-tools"}}
	var err error
	if g.rules.Allow, err = policy.ParseRules(cli.AllowedTools); err != nil {
		return nil, usagef("--allowed-tools: %w", err)
	}
	if g.rules.Deny, err = policy.ParseRules(cli.DisallowedTools); err != nil {
		return nil, usagef("--disallowed-tools: %w", err)
	}
	if cli.Tools != nil {
		// Given, even empty: --tools "" offers no tools at all.
		g.rules.Only = []string{}
		for _, v := range cli.Tools {
			g.rules.Only = append(g.rules.Only, policy.SplitList(v)...)
		}
		for _, n := range g.rules.Only {
			if strings.ContainsAny(n, "()") {
				return nil, usagef("--tools takes tool names; put Shell(PATTERN) rules in --allowed-tools")
			}
		}
	}
	if g.sandbox, err = planSandbox(s); err != nil {
		return nil, err
	}
	return g, nil
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

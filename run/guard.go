package run

import (
	"sort"
	"strings"
	"sync/atomic"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/policy"
)

// guard holds the rules a run puts on its tools: --tools, --allowed-tools and
// --disallowed-tools (and the sandbox's in-process checks, see run/sandbox.go).
type guard struct {
	rules   policy.Policy
	sandbox *sandboxPlan
	denials atomic.Int64
}

// newGuard reads the tool-rule flags and the sandbox flags. Bad rules are usage errors.
func newGuard(cli *CLI, workDir string, getenv func(string) string) (*guard, error) {
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
	if g.sandbox, err = planSandbox(cli, workDir, getenv); err != nil {
		return nil, err
	}
	return g, nil
}

// alwaysKnown are tools that exist in some runs only (Task is the subagent tool, also
// called Agent; SendDMail comes with --dmail): rules may name them in any run.
var alwaysKnown = []string{"Task", "Agent", "SendDMail"}

// check refuses rules that name no tool of the run: known is every tool there is, built-in
// or MCP, whether or not an agent file offers it.
func (g *guard) check(known []string) error {
	if unknown := g.rules.Unknown(append(known, alwaysKnown...)); len(unknown) > 0 {
		sorted := append([]string(nil), known...)
		sort.Strings(sorted)
		return usagef("unknown tool %s in --tools, --allowed-tools or --disallowed-tools; the tools are %s",
			strings.Join(unknown, ", "), strings.Join(sorted, ", "))
	}
	return nil
}

// wrap filters and wraps a toolset: the root's, once every tool (MCP tools included) is in
// it, and each subagent kind's.
func (g *guard) wrap(ts []tools.Tool, emit func(event.Type, any)) []tools.Tool {
	deny := func(d policy.Denial) {
		g.denials.Add(1)
		emit(event.TypeToolDenied, event.ToolDenied{ID: d.CallID, Name: d.Tool, Rule: d.Rule, Message: d.Reason})
	}
	return g.sandbox.guardTools(g.rules.Apply(ts, deny), deny)
}

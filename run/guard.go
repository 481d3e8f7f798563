package run

import (
	"slices"
	"sort"
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

// alwaysKnown are every built-in tool's names, aliases included: rules may name a tool a
// run does not offer (Agent without subagents, also called Task; SendDMail without --dmail).
func alwaysKnown() []string {
	var out []string
	for _, t := range tools.AllBuiltins() {
		out = append(append(out, t.Name()), tools.NameAliases(t.Name())...)
	}
	return out
}

// check refuses rules that match no tool of the run, globs included: known is every tool
// there is, built-in or MCP, whether or not an agent file offers it. Before that, rule names
// written as Claude Code names MCP tools, mcp__SERVER__TOOL (globs too), are replaced by
// the names the run gives those tools; aliases maps each such spelling to that name.
func (g *guard) check(known []string, aliases map[string]string) error {
	all := append(append([]string(nil), known...), alwaysKnown()...)
	g.rules.Rename(func(n string) []string {
		if !strings.HasPrefix(n, "mcp__") || len(g.rulesMatch(n, all)) > 0 {
			return nil
		}
		return g.rulesMatch(n, sortedKeys(aliases), aliases)
	})
	if unknown := g.rules.Unmatched(all); len(unknown) > 0 {
		sorted := append([]string(nil), known...)
		sort.Strings(sorted)
		hint := ""
		if len(aliases) > 0 {
			hint = " (MCP tools also as mcp__SERVER__TOOL)"
		}
		return usagef("no tool of this run matches %s in --tools, --allowed-tools or --disallowed-tools; the tools are %s%s",
			strings.Join(unknown, ", "), strings.Join(sorted, ", "), hint)
	}
	return nil
}

// rulesMatch returns the names a rule name matches among names, mapped through to when given.
func (g *guard) rulesMatch(rule string, names []string, to ...map[string]string) []string {
	var out []string
	for _, n := range names {
		if !policy.Matches(rule, n) {
			continue
		}
		if len(to) > 0 {
			n = to[0][n]
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// mcpAliases maps Claude Code's name for each MCP tool, mcp__SERVER__TOOL (the server's
// name for it, both sanitised as function names are), to the name the run offers it under.
func mcpAliases(ts []tools.Tool) map[string]string {
	out := map[string]string{}
	for _, t := range ts {
		if m, ok := t.(interface {
			Server() string
			ServerName() string
		}); ok {
			out["mcp__"+mcpNamePart(m.Server())+"__"+mcpNamePart(m.ServerName())] = t.Name()
		}
	}
	return out
}

// mcpNamePart keeps what a function name may hold: ASCII letters, digits, '_' and '-'.
func mcpNamePart(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// wrap filters and wraps a toolset: the root's, once every tool (MCP tools included) is in
// it, and each subagent kind's.
func (g *guard) wrap(ts []tools.Tool) []tools.Tool {
	// A refusal marks its result (tools.Result.Denied), which the agent reports.
	return g.sandbox.Guard(g.rules.Apply(ts, nil), nil)
}

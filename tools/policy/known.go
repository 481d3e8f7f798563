package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kimi-run/kimi-run/tools"
)

// CheckNames refuses rules that match no tool of the run, globs included: known is every
// tool there is, built-in or MCP, whether or not an agent file offers it; every built-in's
// names, aliases included, count too (a rule may name a tool a run does not offer: Agent
// without subagents, also called Task; SendDMail without --dmail). Before that, rule names
// written as Claude Code names MCP tools, mcp__SERVER__TOOL (globs too), are replaced by
// the names the run gives those tools; aliases (MCPAliases) maps each such spelling to
// that name.
func (p *Policy) CheckNames(known []string, aliases map[string]string) error {
	all := slices.Clone(known)
	for _, t := range tools.AllBuiltins() {
		all = append(append(all, t.Name()), tools.NameAliases(t.Name())...)
	}
	p.Rename(func(n string) []string {
		if !strings.HasPrefix(n, "mcp__") || len(matching(n, all)) > 0 {
			return nil
		}
		return matching(n, slices.Sorted(maps.Keys(aliases)), aliases)
	})
	if unknown := p.Unmatched(all); len(unknown) > 0 {
		hint := ""
		if len(aliases) > 0 {
			hint = " (MCP tools also as mcp__SERVER__TOOL)"
		}
		return fmt.Errorf("no tool of this run matches %s in --tools, --allowed-tools or --disallowed-tools; the tools are %s%s",
			strings.Join(unknown, ", "), strings.Join(slices.Sorted(slices.Values(known)), ", "), hint)
	}
	return nil
}

// matching returns the names a rule name matches among names, mapped through to when given.
func matching(rule string, names []string, to ...map[string]string) []string {
	var out []string
	for _, n := range names {
		if !Matches(rule, n) {
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

// MCPAliases maps Claude Code's name for each MCP tool of ts, mcp__SERVER__TOOL (the
// server's name for it, both sanitised as function names are), to the name the run offers
// it under.
func MCPAliases(ts []tools.Tool) map[string]string {
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

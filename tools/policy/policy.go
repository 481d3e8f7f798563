// Package policy decides which tools a run offers the model and which of their calls may
// run. It is the one place tool rules are kept: the command line (--tools, --allowed-tools,
// --disallowed-tools), agent files (tools, exclude_tools) and configuration all build a
// Policy, and Apply filters and wraps a toolset with it. Several policies apply one after
// another; a call runs only if every one of them lets it.
//
// A rule is a tool name (Shell, ReadFile, an MCP tool's name; a name with * ? [ is a glob on
// names), or Shell(PATTERN), where PATTERN is a glob on the command line (see MatchCommand).
// Names are compared as tools.CanonicalName gives them: the subagent tool is Agent whether a
// rule calls it Agent or Task (its older name), and Kimi's module:Class names work too.
//
// Rules guard against mistakes and keep a run to its purpose; they are not a security
// boundary (a command can hide what it runs from any pattern). The sandbox is the boundary.
package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/kimi-run/kimi-run/tools"
)

// Rule is one tool rule.
type Rule struct {
	// Tool is a tool name, or a glob on names.
	Tool string
	// Pattern is the Shell(PATTERN) glob; it is only meaningful when HasPattern is set.
	Pattern    string
	HasPattern bool
}

// String writes the rule as it is written on the command line.
func (r Rule) String() string {
	if r.HasPattern {
		return r.Tool + "(" + r.Pattern + ")"
	}
	return r.Tool
}

// ParseRule reads one rule: Name or Shell(PATTERN).
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Rule{}, fmt.Errorf("empty tool rule")
	}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if strings.ContainsAny(s, ")") || strings.ContainsAny(s, " \t") {
			return Rule{}, fmt.Errorf("tool rule %q: a rule is a tool name or Shell(PATTERN)", s)
		}
		if _, err := path.Match(s, ""); err != nil {
			return Rule{}, fmt.Errorf("tool rule %q: bad name pattern: %w", s, err)
		}
		return Rule{Tool: s}, nil
	}
	name, pat := strings.TrimSpace(s[:open]), s[open+1:]
	if !strings.HasSuffix(pat, ")") || name == "" {
		return Rule{}, fmt.Errorf("tool rule %q: want Shell(PATTERN)", s)
	}
	pat = strings.TrimSpace(strings.TrimSuffix(pat, ")"))
	if name == "Bash" {
		// Claude Code's rule for its command tool; its "cmd:*" is a prefix, as "cmd*" here.
		shell := "Shell(" + strings.TrimSuffix(pat, ":*")
		if strings.HasSuffix(pat, ":*") {
			shell += "*"
		}
		return Rule{}, fmt.Errorf("tool rule %q: kimi-run's command tool is Shell: did you mean %q?", s, shell+")")
	}
	if name != "Shell" {
		return Rule{}, fmt.Errorf("tool rule %q: only Shell takes a pattern (the command line)", s)
	}
	if pat == "" {
		return Rule{}, fmt.Errorf("tool rule %q: empty pattern; write Shell to name every command", s)
	}
	if _, err := compileGlob(pat); err != nil {
		return Rule{}, fmt.Errorf("tool rule %q: %w", s, err)
	}
	return Rule{Tool: name, Pattern: pat, HasPattern: true}, nil
}

// nameMatches reports whether a rule's tool name (perhaps a glob) names tool.
func nameMatches(ruleName, tool string) bool {
	rn, tn := tools.CanonicalName(ruleName), tools.CanonicalName(tool)
	if rn == tn {
		return true
	}
	if strings.ContainsAny(ruleName, "*?[") {
		ok, _ := path.Match(ruleName, tool)
		return ok
	}
	return false
}

// Policy is one set of tool rules.
type Policy struct {
	// Only, when not nil, is the exact set of tools offered (names or name globs).
	Only []string
	// Allow, when not empty, lets a call run only if a rule matches it; a tool that no
	// Allow rule names is not offered.
	Allow []Rule
	// Deny refuses the calls a rule matches; a Deny rule without a pattern removes the tool.
	// Deny beats Allow.
	Deny []Rule
	// Source names where the rules come from, for the messages the model and the user see
	// (for example "--disallowed-tools" or "agent file").
	Source string
}

// Denial is a call a Policy refused.
type Denial struct {
	// CallID is the id of the refused tool call.
	CallID string
	Tool   string
	// Rule is the rule that refused it; empty when no Allow rule matched.
	Rule string
	// Reason is the message the model received.
	Reason string
}

// Offers reports whether the policy offers the tool named name at all.
func (p Policy) Offers(name string) bool {
	if p.Only != nil && !p.listed(name) {
		return false
	}
	for _, r := range p.Deny {
		if !r.HasPattern && nameMatches(r.Tool, name) {
			return false
		}
	}
	if len(p.Allow) > 0 {
		for _, r := range p.Allow {
			if nameMatches(r.Tool, name) {
				return true
			}
		}
		return false
	}
	return true
}

func (p Policy) listed(name string) bool {
	for _, n := range p.Only {
		if nameMatches(n, name) {
			return true
		}
	}
	return false
}

// Check decides whether a call of an offered tool may run. It returns the refusing rule
// ("" when the refusal is that no Allow rule matched) and ok.
func (p Policy) Check(name string, args json.RawMessage) (rule string, ok bool) {
	command, hasCommand := shellCommand(name, args)
	for _, r := range p.Deny {
		if !nameMatches(r.Tool, name) {
			continue
		}
		if !r.HasPattern || hasCommand && DenyMatches(r.Pattern, command) {
			return r.String(), false
		}
	}
	if len(p.Allow) == 0 {
		return "", true
	}
	var patterns []string
	for _, r := range p.Allow {
		if !nameMatches(r.Tool, name) {
			continue
		}
		if !r.HasPattern {
			return "", true
		}
		patterns = append(patterns, r.Pattern)
	}
	if len(patterns) > 0 && (!hasCommand || AllowMatches(patterns, command)) {
		// Arguments without a command are the tool's to reject; it runs nothing then.
		return "", true
	}
	return "", false
}

// shellCommand returns the command line of a Shell call.
func shellCommand(name string, args json.RawMessage) (string, bool) {
	if name != "Shell" {
		return "", false
	}
	var a struct {
		Command *string `json:"command"`
	}
	if json.Unmarshal(args, &a) != nil || a.Command == nil {
		return "", false
	}
	return *a.Command, true
}

// names returns every tool name the policy uses, globs included, in rule order.
func (p Policy) names() []string {
	out := slices.Clone(p.Only)
	for _, r := range p.Allow {
		out = append(out, r.Tool)
	}
	for _, r := range p.Deny {
		out = append(out, r.Tool)
	}
	return out
}

// Names returns the tool names the policy itself names without a glob, for checking them
// against the toolset.
func (p Policy) Names() []string {
	return slices.DeleteFunc(p.names(), func(n string) bool { return strings.ContainsAny(n, "*?[") })
}

// Unknown returns the names the policy uses that match none of the tool names given:
// usually a typo, which would otherwise silently allow or remove nothing.
func (p Policy) Unknown(toolNames []string) []string {
	return unmatched(p.Names(), toolNames)
}

// Unmatched returns the names the policy uses, globs included, that match none of the tool
// names given: a rule that names nothing allows or removes nothing, and with an allow list
// it silently leaves the run without the tools it was meant for.
func (p Policy) Unmatched(toolNames []string) []string {
	return unmatched(p.names(), toolNames)
}

// unmatched returns, once each, the names that match none of toolNames.
func unmatched(names, toolNames []string) []string {
	var out []string
	for _, n := range names {
		if slices.Contains(out, n) || slices.ContainsFunc(toolNames, func(t string) bool { return nameMatches(n, t) }) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// Rename replaces each rule name (Only, and the Tool of Allow and Deny rules) for which
// expand returns names by one copy per name, in order. It lets a caller accept another
// spelling of tool names, such as Claude Code's mcp__SERVER__TOOL for MCP tools.
func (p *Policy) Rename(expand func(string) []string) {
	var only []string
	for _, n := range p.Only {
		if names := expand(n); names != nil {
			only = append(only, names...)
		} else {
			only = append(only, n)
		}
	}
	if p.Only != nil {
		p.Only = only
	}
	rules := func(rs []Rule) []Rule {
		var out []Rule
		for _, r := range rs {
			names := expand(r.Tool)
			if names == nil {
				out = append(out, r)
				continue
			}
			for _, n := range names {
				c := r
				c.Tool = n
				out = append(out, c)
			}
		}
		return out
	}
	p.Allow, p.Deny = rules(p.Allow), rules(p.Deny)
}

// Matches reports whether a rule's tool name (a name or a glob) names the tool.
func Matches(ruleName, tool string) bool { return nameMatches(ruleName, tool) }

// Apply returns the tools of ts that the policy offers, in order. Those whose calls a rule
// may refuse are wrapped: a refused call does not run, returns an error result the model
// can read, and is reported to onDeny (which may be nil) first.
func (p Policy) Apply(ts []tools.Tool, onDeny func(Denial)) []tools.Tool {
	var out []tools.Tool
	for _, t := range ts {
		if !p.Offers(t.Name()) {
			continue
		}
		if p.mayRefuse(t.Name()) {
			t = &guarded{Tool: t, policy: p, onDeny: onDeny}
		}
		out = append(out, t)
	}
	return out
}

// mayRefuse reports whether some call of an offered tool could be refused.
func (p Policy) mayRefuse(name string) bool {
	for _, r := range p.Deny {
		if r.HasPattern && nameMatches(r.Tool, name) {
			return true
		}
	}
	for _, r := range p.Allow {
		if nameMatches(r.Tool, name) && !r.HasPattern {
			return false
		}
	}
	return len(p.Allow) > 0
}

// guarded is a tool whose calls a Policy checks first.
type guarded struct {
	tools.Tool
	policy Policy
	onDeny func(Denial)
}

// Run implements tools.Tool.
func (g *guarded) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	rule, ok := g.policy.Check(g.Name(), args)
	if ok {
		return g.Tool.Run(ctx, args)
	}
	src := g.policy.Source
	if src == "" {
		src = "the tool rules"
	}
	var reason string
	if rule != "" {
		reason = fmt.Sprintf("not run: the rule %s of %s refuses this call. Do not try to get around the rule; do the task another way, or say in your final answer what could not be done.", rule, src)
	} else {
		reason = fmt.Sprintf("not run: no rule of %s allows this call. Do not try to get around the rules; do the task another way, or say in your final answer what could not be done.", src)
	}
	if g.onDeny != nil {
		g.onDeny(Denial{CallID: tools.CallID(ctx), Tool: g.Name(), Rule: rule, Reason: reason})
	}
	return tools.Result{Output: reason, IsError: true}.Deny(tools.DeniedByRules, rule), nil
}

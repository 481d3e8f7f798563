package policy

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// FromFlags is the policy of --allowed-tools, --disallowed-tools and --tools (only: nil
// when not given; given, even empty, it offers the tools it names and no other).
func FromFlags(allowed, disallowed, only []string) (Policy, error) {
	p := Policy{Source: "--allowed-tools/--disallowed-tools"}
	var err error
	if p.Allow, err = ParseRules(allowed); err != nil {
		return p, fmt.Errorf("--allowed-tools: %w", err)
	}
	if p.Deny, err = ParseRules(disallowed); err != nil {
		return p, fmt.Errorf("--disallowed-tools: %w", err)
	}
	if only != nil {
		p.Only = []string{}
		for _, v := range only {
			p.Only = append(p.Only, splitList(v)...)
		}
		if slices.ContainsFunc(p.Only, func(n string) bool { return strings.ContainsAny(n, "()") }) {
			return p, errors.New("--tools takes tool names; put Shell(PATTERN) rules in --allowed-tools")
		}
	}
	return p, nil
}

// ParseRules reads rules from flag values. Each value may hold several rules separated by
// commas or spaces; a comma or space inside Shell(...) belongs to the pattern.
func ParseRules(values []string) ([]Rule, error) {
	var out []Rule
	for _, v := range values {
		for _, item := range splitList(v) {
			r, err := ParseRule(item)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// splitList splits a list of names or rules on commas and white space outside parentheses.
func splitList(s string) []string {
	var out []string
	var cur strings.Builder
	depth := 0
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n'):
			flush()
			continue
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}

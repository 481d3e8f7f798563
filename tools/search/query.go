package search

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Mode is the shape of a content search's results.
type Mode uint8

const (
	// FilesWithMatches lists the files that contain a match.
	FilesWithMatches Mode = iota
	// Content lists the matching lines, with context lines as asked.
	Content
	// CountMatches counts the matches in each file.
	CountMatches
)

// Query is one content search. Its option names follow ripgrep's flags.
type Query struct {
	// Pattern is a Go RE2 regular expression. "^" and "$" match at line boundaries.
	Pattern string
	Mode    Mode
	// Before and After are the lines of context around each match (Content mode).
	Before, After int
	IgnoreCase    bool
	// Multiline lets a match span lines; "." then also matches a line break. Without it a
	// pattern that spells out a line break is refused.
	Multiline bool
	// Glob, when set, selects the files to search as rg's --glob does ("*.go",
	// "*.{ts,tsx}"); a leading "!" excludes the files it matches instead. It takes
	// precedence over the ignore files.
	Glob string
	// Type, when set, limits the search to one file type (see TypeNames).
	Type string
	// IncludeIgnored searches the files the ignore files (.gitignore, .ignore, .rgignore,
	// .git/info/exclude) exclude, as rg's --no-ignore does; VCS directories stay out.
	IncludeIgnored bool
	// Offset and Limit select the page of results to keep, counted in output lines: one per
	// file, or one per shown line in Content mode. Limit 0 keeps none; the totals still
	// count everything. Memory grows with Offset+Limit, not with the size of the tree.
	Offset, Limit int
}

// Grep is a validated Query, ready to run.
type Grep struct {
	q         Query
	re        *regexp.Regexp // the pattern with (?m) and, as asked, (?s) and (?i)
	typeGlobs []string
}

// NewGrep checks a query and compiles its pattern. The error explains a refusal in a
// sentence fit to show the model.
func NewGrep(q Query) (*Grep, error) {
	q.Glob = strings.TrimSpace(q.Glob)
	g := &Grep{q: q}
	switch {
	case q.Pattern == "":
		return nil, fmt.Errorf("the pattern is empty")
	case q.Mode > CountMatches:
		return nil, fmt.Errorf("unknown mode %d", q.Mode)
	case q.Before < 0 || q.After < 0 || q.Offset < 0 || q.Limit < 0:
		return nil, fmt.Errorf("context lines, offset and limit must not be negative")
	}
	if q.Type != "" {
		globs, ok := lookupType(q.Type)
		if !ok {
			return nil, fmt.Errorf("unknown file type %q; known types: %s (or use glob)", q.Type, strings.Join(TypeNames(), ", "))
		}
		g.typeGlobs = globs
	}
	if q.Glob != "" {
		if _, ok := parseIgnoreLine(q.Glob, true); !ok || strings.HasPrefix(q.Glob, "#") {
			return nil, fmt.Errorf("invalid glob %q", q.Glob)
		}
	}
	flags := "m"
	if q.Multiline {
		flags += "s"
	}
	if q.IgnoreCase {
		flags += "i"
	}
	re, err := regexp.Compile("(?" + flags + ")" + q.Pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression: %w", err)
	}
	if !q.Multiline && hasLiteralNewline(q.Pattern) {
		return nil, fmt.Errorf("the pattern contains a line break, which cannot match within one line; set multiline to true")
	}
	g.re = re
	return g, nil
}

// Query returns the query g was made from.
func (g *Grep) Query() Query { return g.q }

// keep is how many output lines must be retained to cut the requested page.
func (g *Grep) keep() int { return g.q.Offset + g.q.Limit }

// context reports whether content output has context lines.
func (g *Grep) context() bool {
	return g.q.Mode == Content && (g.q.Before > 0 || g.q.After > 0)
}

// hasLiteralNewline reports whether a pattern spells out a "\n" character.
func hasLiteralNewline(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false
	}
	var walk func(*syntax.Regexp) bool
	walk = func(r *syntax.Regexp) bool {
		if r.Op == syntax.OpLiteral && strings.ContainsRune(string(r.Rune), '\n') {
			return true
		}
		for _, sub := range r.Sub {
			if walk(sub) {
				return true
			}
		}
		return false
	}
	return walk(re)
}

package search

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// This file holds a compact matcher for .gitignore-style files, written here rather than
// taken from go-git so the search tools add no module dependencies. It covers what
// .gitignore files use in practice: comments, escaped "\#" and "\!", trailing-space
// trimming, negation "!x", directory-only "x/", anchored "/x" and "a/b", and "**" in
// leading, trailing and middle positions. Matching is case-sensitive, as git is on Linux.

// ignoreVerdict is what a set of rules says about one path.
type ignoreVerdict uint8

const (
	verdictNone   ignoreVerdict = iota // no rule matched
	verdictIgnore                      // the last matching rule excludes the path
	verdictKeep                        // the last matching rule is a negation ("!x")
)

// ignoreKind selects how a rule is compared; the two fast paths cover most real lines.
type ignoreKind uint8

const (
	ignoreGlob   ignoreKind = iota // doublestar match
	ignoreExact                    // plain name, no wildcards
	ignoreSuffix                   // "*" followed by plain text, such as "*.log"
)

// ignoreRule is one pattern line of an ignore file.
type ignoreRule struct {
	glob     string // doublestar pattern; braces escaped because git treats them literally
	lit      string // the exact name or the suffix for the fast paths
	inside   string // for "x/**": x itself must not match, only what lies below it
	kind     ignoreKind
	negate   bool
	dirOnly  bool
	anchored bool // compared with the path below the file's directory, not the base name
}

// ignoreRules are the rules of one file in file order; the last matching rule decides.
type ignoreRules []ignoreRule

// parseIgnoreRules parses the contents of a .gitignore, .ignore or .rgignore file.
// Lines that cannot be parsed are dropped, as git drops them.
func parseIgnoreRules(data []byte) ignoreRules {
	var rules ignoreRules
	for line := range strings.SplitSeq(string(data), "\n") {
		if r, ok := parseIgnoreLine(line, false); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

// parseIgnoreLine parses one line; ok is false for blank lines, comments and bad patterns.
// With braces, "{a,b}" lists alternatives as in ripgrep's --glob; git reads braces literally.
func parseIgnoreLine(line string, braces bool) (ignoreRule, bool) {
	var r ignoreRule
	line = trimIgnoreSpace(strings.TrimSuffix(line, "\r"))
	if line == "" || line[0] == '#' {
		return r, false
	}
	switch {
	case line[0] == '!':
		r.negate = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if strings.HasPrefix(line, "/") {
		r.anchored = true
		line = strings.TrimLeft(line, "/")
	} else if strings.Contains(line, "/") {
		r.anchored = true
	}
	if line == "" {
		return r, false
	}
	glob, ok := line, true
	if !braces {
		glob, ok = escapeBraces(line)
	}
	if !ok || !doublestar.ValidatePattern(glob) {
		return r, false
	}
	r.glob = glob
	if inside, found := strings.CutSuffix(glob, "/**"); found {
		r.inside = inside
	}
	meta := `*?[\`
	if braces {
		meta += "{"
	}
	switch {
	case !strings.ContainsAny(line, meta):
		r.kind, r.lit = ignoreExact, line
	case !r.anchored && line[0] == '*' && !strings.ContainsAny(line[1:], meta):
		r.kind, r.lit = ignoreSuffix, line[1:]
	}
	return r, true
}

// trimIgnoreSpace drops trailing spaces that are not escaped with a backslash.
func trimIgnoreSpace(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// escapeBraces escapes "{" and "}", which doublestar reads as alternatives and git reads
// literally. ok is false for a pattern ending in a lone backslash, which git rejects.
func escapeBraces(s string) (string, bool) {
	if !strings.ContainsAny(s, "{}") {
		return s, !strings.HasSuffix(s, `\`) || strings.HasSuffix(s, `\\`)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 == len(s) {
				return "", false
			}
			b.WriteByte(c)
			i++
			b.WriteByte(s[i])
		case '{', '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// match returns the verdict of the last rule matching a path. rel is the path below the
// ignore file's directory (slash-separated), name its last element.
func (rs ignoreRules) match(rel, name string, isDir bool) ignoreVerdict {
	for i := len(rs) - 1; i >= 0; i-- {
		r := &rs[i]
		if r.dirOnly && !isDir {
			continue
		}
		if r.matches(rel, name) {
			if r.negate {
				return verdictKeep
			}
			return verdictIgnore
		}
	}
	return verdictNone
}

func (r *ignoreRule) matches(rel, name string) bool {
	subject := name
	if r.anchored {
		subject = rel
	}
	switch r.kind {
	case ignoreExact:
		return subject == r.lit
	case ignoreSuffix:
		return strings.HasSuffix(subject, r.lit)
	}
	if r.inside != "" && doublestar.MatchUnvalidated(r.inside, subject) {
		return false
	}
	return doublestar.MatchUnvalidated(r.glob, subject)
}

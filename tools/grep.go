package tools

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"regexp/syntax"
	"strings"
)

const grepDescription = `Search file contents with a regular expression (Go RE2 syntax: \b, \d, \s,
(?i), character classes and alternation work; lookaround and backreferences do not). Escape
regex metacharacters to search for literal text, e.g. "Foo\.bar\(" for "Foo.bar(".

Output modes:
- files_with_matches (default): the paths of files that contain a match.
- content: matching lines as path:line:text; context lines use "-" instead of ":" and
  groups are separated by "--". Use -A, -B or -C for context and -n to toggle line numbers.
- count_matches: the number of matches in each file, as path:count.

Narrow the search with path (a file or directory), glob (e.g. "*.go", "*.{ts,tsx}", or
"!*_test.go" to exclude) and type (e.g. go, py, js, ts, rust, md). Hidden files are searched;
VCS directories, files excluded by .gitignore or .ignore, binary files and files that look
like they hold secrets are skipped. Files are listed most recently modified first.
Results are paged: head_limit (default 250, 0 for no limit) caps the output lines and
offset skips lines already seen. Set multiline to let a match span lines ("." then also
matches newlines).`

// grepArgs are the arguments of the Grep tool. Option names follow ripgrep's flags.
type grepArgs struct {
	Pattern     string `json:"pattern" description:"regular expression to search for (Go RE2 syntax)"`
	Path        string `json:"path,omitempty" description:"file or directory to search, absolute or relative to the work directory (default \".\")"`
	Glob        string `json:"glob,omitempty" description:"only search files matching this glob, e.g. *.go or *.{ts,tsx}; a leading ! excludes matching files instead"`
	Type        string `json:"type,omitempty" description:"only search files of this type: go, py, js, ts, rust, md, java, c, cpp, json, yaml, sh, ..."`
	OutputMode  string `json:"output_mode,omitempty" enum:"files_with_matches,content,count_matches" description:"files_with_matches (default) lists paths; content shows matching lines; count_matches counts matches per file"`
	After       *int   `json:"-A,omitempty" description:"lines of context to show after each match (content mode)"`
	Before      *int   `json:"-B,omitempty" description:"lines of context to show before each match (content mode)"`
	Context     *int   `json:"-C,omitempty" description:"lines of context to show before and after each match (content mode)"`
	LineNumbers *bool  `json:"-n,omitempty" description:"show line numbers in content mode (default true)"`
	IgnoreCase  bool   `json:"-i,omitempty" description:"match case-insensitively"`
	Multiline   bool   `json:"multiline,omitempty" description:"let matches span lines; . also matches newlines"`
	HeadLimit   *int   `json:"head_limit,omitempty" description:"show at most this many output lines (default 250; 0 means no limit)"`
	Offset      int    `json:"offset,omitempty" description:"skip this many output lines first, to page through results (default 0)"`
}

// grepMode is the shape of Grep's output.
type grepMode uint8

const (
	grepFiles grepMode = iota
	grepContent
	grepCount
)

const (
	grepDefaultLimit = 250
	// grepMaxUnits bounds the output lines of one call when head_limit is 0.
	grepMaxUnits = 10000
	// grepMaxContext bounds -A, -B and -C.
	grepMaxContext = 1000
	// grepCharBudget keeps one page of output below the agent's 50,000-character cap, so
	// the paging notes at its end always reach the model.
	grepCharBudget = 40000
)

// grepQuery is a validated Grep call.
type grepQuery struct {
	pattern       string
	re            *regexp.Regexp // pattern with the (?m) and, as asked, (?s) and (?i) flags
	mode          grepMode
	before, after int
	lineNumbers   bool
	ignoreCase    bool
	multiline     bool
	glob          string
	typeName      string
	typeGlobs     []string
	offset, limit int // limit is never 0: "no limit" becomes grepMaxUnits
}

// keep is how many output lines must be retained to render the requested page.
func (q *grepQuery) keep() int { return q.offset + q.limit }

// context reports whether content output has context lines and so group separators.
func (q *grepQuery) context() bool {
	return q.mode == grepContent && (q.before > 0 || q.after > 0)
}

// NewGrep returns the Grep tool, which searches file contents with a regular expression.
func NewGrep(env Env) Tool {
	g := &grepper{env: env}
	return New("Grep", grepDescription, g.run)
}

type grepper struct{ env Env }

func (g *grepper) run(ctx context.Context, in grepArgs) (Result, error) {
	q, msg := newGrepQuery(in)
	if msg != "" {
		return Errorf("%s", msg), nil
	}
	root := searchAbs(g.env.WorkDir, in.Path)
	info, err := os.Stat(root)
	if err != nil {
		return Errorf("cannot search %s: %v", displayPath(g.env.WorkDir, root), err), nil
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		return Errorf("%s is neither a regular file nor a directory", displayPath(g.env.WorkDir, root)), nil
	}
	if reason, secret := sensitive(root); secret && !info.IsDir() {
		return Errorf("%s was not searched: %s", displayPath(g.env.WorkDir, root), reason), nil
	}

	ctx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	col := &grepCollector{keep: q.keep(), content: q.mode == grepContent}
	search := g.searchGo
	if g.env.Ripgrep != "" {
		search = g.searchRipgrep
	}
	skips, err := search(ctx, q, root, info.IsDir(), col)
	if err != nil {
		if ctx.Err() != nil {
			return searchStopped("Grep", ctx.Err()), nil
		}
		return Errorf("Grep failed: %v", err), nil
	}
	return Text(col.render(q, skips)), nil
}

// newGrepQuery validates the arguments; msg explains a refusal.
func newGrepQuery(in grepArgs) (q *grepQuery, msg string) {
	q = &grepQuery{pattern: in.Pattern, ignoreCase: in.IgnoreCase, multiline: in.Multiline,
		glob: strings.TrimSpace(in.Glob), lineNumbers: in.LineNumbers == nil || *in.LineNumbers}
	if in.Pattern == "" {
		return nil, "the pattern is empty"
	}
	switch in.OutputMode {
	case "", "files_with_matches":
		q.mode = grepFiles
	case "content":
		q.mode = grepContent
	case "count_matches":
		q.mode = grepCount
	default:
		return nil, fmt.Sprintf("unknown output_mode %q: use files_with_matches, content or count_matches", in.OutputMode)
	}
	for _, c := range []struct {
		name string
		v    *int
	}{{"-A", in.After}, {"-B", in.Before}, {"-C", in.Context}, {"head_limit", in.HeadLimit}, {"offset", &in.Offset}} {
		if c.v != nil && *c.v < 0 {
			return nil, fmt.Sprintf("%s must not be negative", c.name)
		}
	}
	ctxLines := func(v *int) int {
		switch {
		case v != nil:
			return min(*v, grepMaxContext)
		case in.Context != nil:
			return min(*in.Context, grepMaxContext)
		}
		return 0
	}
	q.before, q.after = ctxLines(in.Before), ctxLines(in.After)
	q.offset, q.limit = in.Offset, grepDefaultLimit
	if in.HeadLimit != nil {
		q.limit = *in.HeadLimit
	}
	if q.limit == 0 || q.limit > grepMaxUnits {
		q.limit = grepMaxUnits
	}
	if in.Type != "" {
		globs, ok := lookupGrepType(in.Type)
		if !ok {
			return nil, fmt.Sprintf("unknown file type %q; known types: %s (or use glob)", in.Type, grepTypeNames())
		}
		q.typeName, q.typeGlobs = in.Type, globs
	}
	if q.glob != "" {
		if _, ok := parseIgnoreLine(q.glob, true); !ok || strings.HasPrefix(q.glob, "#") {
			return nil, fmt.Sprintf("invalid glob %q", q.glob)
		}
	}
	flags := "m"
	if q.multiline {
		flags += "s"
	}
	if q.ignoreCase {
		flags += "i"
	}
	re, err := regexp.Compile("(?" + flags + ")" + in.Pattern)
	if err != nil {
		return nil, fmt.Sprintf("invalid regular expression: %v", err)
	}
	if !q.multiline && hasLiteralNewline(in.Pattern) {
		return nil, "the pattern contains a line break, which cannot match within one line; set multiline to true"
	}
	q.re = re
	return q, ""
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

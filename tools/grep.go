package tools

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/kimi-run/kimi-run/tools/search"
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
Results are paged: head_limit (default {grep_default_limit}; 0 for up to {grep_max_lines}) caps the output lines and
offset skips lines already seen. Set multiline to let a match span lines ("." then also
matches newlines).`

// grepArgs are the arguments of the Grep tool. Option names follow ripgrep's flags.
type grepArgs struct {
	Pattern     string `json:"pattern" description:"regular expression to search for (Go RE2 syntax)"`
	Path        string `json:"path,omitempty" default:"\".\"" description:"file or directory to search, absolute or relative to the work directory (default \".\")"`
	Glob        string `json:"glob,omitempty" null:"true" default:"null" description:"only search files matching this glob, e.g. *.go or *.{ts,tsx}; a leading ! excludes matching files instead"`
	OutputMode  string `json:"output_mode,omitempty" default:"\"files_with_matches\"" description:"files_with_matches (default) lists paths; content shows matching lines; count_matches counts matches per file"`
	Before      *int   `json:"-B,omitempty" null:"true" default:"null" description:"lines of context to show before each match (content mode)"`
	After       *int   `json:"-A,omitempty" null:"true" default:"null" description:"lines of context to show after each match (content mode)"`
	Context     *int   `json:"-C,omitempty" null:"true" default:"null" description:"lines of context to show before and after each match (content mode)"`
	LineNumbers *bool  `json:"-n,omitempty" default:"true" description:"show line numbers in content mode (default true)"`
	IgnoreCase  bool   `json:"-i,omitempty" default:"false" description:"match case-insensitively"`
	Type        string `json:"type,omitempty" null:"true" default:"null" description:"only search files of this type: go, py, js, ts, rust, md, java, c, cpp, json, yaml, sh, ..."`
	HeadLimit   *int   `json:"head_limit,omitempty" null:"true" default:"250" minimum:"0" description:"show at most this many output lines (default {grep_default_limit}; 0 for up to {grep_max_lines})"`
	Offset      int    `json:"offset,omitempty" default:"0" minimum:"0" description:"skip this many output lines first, to page through results (default 0)"`
	Multiline   bool   `json:"multiline,omitempty" default:"false" description:"let matches span lines; . also matches newlines"`
	// IncludeIgnored searches what the ignore files hide, as Kimi's include_ignored does.
	IncludeIgnored bool `json:"include_ignored,omitempty" default:"false" description:"also search files that .gitignore and the like exclude (build output, node_modules); secret files stay excluded"`
}

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

// grepCall is a validated Grep call: the search and how to show its results.
type grepCall struct {
	search      *search.Grep
	q           search.Query
	lineNumbers bool
}

// NewGrep returns the Grep tool, which searches file contents with a regular expression.
func NewGrep(env Env) Tool {
	g := &grepper{env: env}
	return New("Grep", grepDescription, Facts{ReadsFiles: true, PathArg: "path", ReadOnly: true}, g.run)
}

type grepper struct{ env Env }

func (g *grepper) run(ctx context.Context, in grepArgs) (Result, error) {
	call, msg := newGrepCall(in)
	if msg != "" {
		return Errorf("%s", msg).WithKimi(kimiGrepFailed(msg), ""), nil
	}
	root := searchAbs(g.env.WorkDir, in.Path)
	info, err := os.Stat(root)
	if err != nil {
		return Errorf("cannot search %s: %v", search.DisplayPath(g.env.WorkDir, root), err).
			WithKimi(kimiGrepFailed(fmt.Sprintf("%s: %v", search.DisplayPath(g.env.WorkDir, root), errors.Unwrap(err))), ""), nil
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		msg := fmt.Sprintf("%s is neither a regular file nor a directory", search.DisplayPath(g.env.WorkDir, root))
		return Errorf("%s", msg).WithKimi(kimiGrepFailed(msg), ""), nil
	}
	if reason, secret := search.SensitiveFile(root); secret && !info.IsDir() {
		return Errorf("%s was not searched: %s", search.DisplayPath(g.env.WorkDir, root), reason).Deny(DeniedByGuard, SecretFileRule), nil
	}

	ctx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	m, err := call.search.Run(ctx, search.Options{WorkDir: g.env.WorkDir, Ripgrep: g.env.Ripgrep, Launcher: g.env.Launcher}, root)
	if err != nil {
		if ctx.Err() != nil {
			return kimiGrepStopped(searchStopped("Grep", ctx.Err()), ctx.Err()), nil
		}
		return Errorf("Grep failed: %v", err).WithKimi(kimiGrepFailed(err.Error()), ""), nil
	}
	return Text(call.render(m)).WithKimi(call.kimiGrep(m)), nil
}

// newGrepCall validates the arguments; msg explains a refusal.
func newGrepCall(in grepArgs) (call *grepCall, msg string) {
	if in.Pattern == "" {
		return nil, "the pattern is empty"
	}
	q := search.Query{Pattern: in.Pattern, IgnoreCase: in.IgnoreCase, Multiline: in.Multiline,
		Glob: in.Glob, Type: in.Type, IncludeIgnored: in.IncludeIgnored}
	switch in.OutputMode {
	case "", "files_with_matches":
		q.Mode = search.FilesWithMatches
	case "content":
		q.Mode = search.Content
	case "count_matches":
		q.Mode = search.CountMatches
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
	if q.Mode == search.Content {
		q.Before, q.After = ctxLines(in.Before), ctxLines(in.After)
	}
	q.Offset, q.Limit = in.Offset, grepDefaultLimit
	if in.HeadLimit != nil {
		q.Limit = *in.HeadLimit
	}
	if q.Limit == 0 || q.Limit > grepMaxUnits {
		q.Limit = grepMaxUnits
	}
	s, err := search.NewGrep(q)
	if err != nil {
		return nil, err.Error()
	}
	return &grepCall{search: s, q: s.Query(), lineNumbers: in.LineNumbers == nil || *in.LineNumbers}, ""
}

// context reports whether content output has context lines and so group separators.
func (c *grepCall) context() bool {
	return c.q.Mode == search.Content && (c.q.Before > 0 || c.q.After > 0)
}

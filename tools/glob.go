package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/kimi-run/kimi-run/tools/search"
)

// globLimit caps how many paths one Glob call returns.
const globLimit = 1000

const globDescription = `Find files and directories by name with a glob pattern, such as "**/*.go",
"src/**/*_test.ts" or "docs/*.{md,txt}". The pattern is matched against paths relative to the
search directory: "*" and "?" stay within one path element, "**" spans any number of
directories, "{a,b}" lists alternatives and "[...]" is a character class.

Results are sorted with the most recently modified first, and at most {glob_limit} are returned.
Version-control directories, node_modules and anything excluded by .gitignore or .ignore
files are skipped. Symbolic links are not followed. Paths are shown relative to the work
directory (absolute when outside it); directories end with "/".

Use Glob to locate files by name; use Grep to search inside files.`

// globArgs are the arguments of the Glob tool.
type globArgs struct {
	Pattern     string `json:"pattern" description:"glob pattern relative to the search directory, e.g. **/*.go"`
	Directory   string `json:"directory,omitempty" null:"true" default:"null" description:"absolute directory to search in; defaults to the work directory"`
	IncludeDirs *bool  `json:"include_dirs,omitempty" default:"true" description:"also list matching directories (default true)"`
}

// NewGlob returns the Glob tool, which lists paths matching a glob pattern.
func NewGlob(env Env) Tool {
	g := &globber{env: env}
	return New("Glob", globDescription, Facts{ReadsFiles: true, PathArg: "directory", ReadOnly: true}, g.run)
}

type globber struct{ env Env }

func (g *globber) run(ctx context.Context, in globArgs) (Result, error) {
	pattern := in.Pattern
	if msg := checkGlobPattern(pattern); msg != "" {
		return Errorf("invalid pattern %q: %s", pattern, msg), nil
	}
	root := searchAbs(g.env.WorkDir, in.Directory)
	info, err := os.Stat(root)
	switch {
	case err != nil:
		return Errorf("cannot search %s: %v", root, err), nil
	case !info.IsDir():
		return Errorf("%s is not a directory; Glob searches below a directory", root), nil
	}

	ctx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	q := search.GlobQuery{Pattern: pattern, IncludeDirs: in.IncludeDirs == nil || *in.IncludeDirs, Limit: globLimit}
	l, err := search.Glob(ctx, search.Options{WorkDir: g.env.WorkDir, Ripgrep: g.env.Ripgrep, Launcher: g.env.Launcher}, q, root)
	if err != nil {
		if ctx.Err() != nil {
			return searchStopped("Glob", ctx.Err()), nil
		}
		return Errorf("Glob failed: %v", err), nil
	}
	return Text(renderGlob(l, pattern, search.DisplayPath(g.env.WorkDir, root))).WithKimi(kimiGlob(l, pattern)), nil
}

// kimiGlob words a listing as Kimi CLI's Glob does (tools/file/glob.py), for its message
// lines: how many matched, then the paths one a line.
func kimiGlob(l *search.Listing, pattern string) (string, string) {
	if l.Total == 0 {
		return fmt.Sprintf("No matches found for pattern `%s`.", pattern), ""
	}
	msg := fmt.Sprintf("Found %d matches for pattern `%s`.", l.Total, pattern)
	if l.Total > len(l.Entries) {
		msg += fmt.Sprintf(" Only the first %d matches are returned. You may want to use a more specific pattern.", len(l.Entries))
	}
	paths := make([]string, len(l.Entries))
	for i, e := range l.Entries {
		paths[i] = e.Path
	}
	return msg, strings.Join(paths, "\n")
}

// checkGlobPattern returns why a pattern is refused, or "".
func checkGlobPattern(p string) string {
	switch {
	case strings.TrimSpace(p) == "":
		return "the pattern is empty"
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return "the pattern must be relative; put the absolute part in the directory argument"
	case !doublestar.ValidatePattern(p):
		return "it is not a valid glob (check brackets and braces)"
	}
	for elem := range strings.SplitSeq(p, "/") {
		if elem == ".." {
			return `".." may not appear in the pattern; set the directory argument instead`
		}
	}
	return ""
}

// renderGlob formats the kept matches for the model.
func renderGlob(l *search.Listing, pattern, root string) string {
	if l.Total == 0 {
		return fmt.Sprintf("No paths match %q under %s.", pattern, root)
	}
	var b strings.Builder
	for _, e := range l.Entries {
		b.WriteString(e.Path)
		if e.IsDir {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	if l.Total > len(l.Entries) {
		fmt.Fprintf(&b, "\n(Showing the %d most recently modified of %d matches; use a narrower pattern or directory to see the others.)\n",
			len(l.Entries), l.Total)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

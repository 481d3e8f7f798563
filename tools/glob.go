package tools

import (
	"container/heap"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// globLimit caps how many paths one Glob call returns.
const globLimit = 1000

const globDescription = `Find files and directories by name with a glob pattern, such as "**/*.go",
"src/**/*_test.ts" or "docs/*.{md,txt}". The pattern is matched against paths relative to the
search directory: "*" and "?" stay within one path element, "**" spans any number of
directories, "{a,b}" lists alternatives and "[...]" is a character class.

Results are sorted with the most recently modified first, and at most 1000 are returned.
Version-control directories, node_modules and anything excluded by .gitignore or .ignore
files are skipped. Symbolic links are not followed. Paths are shown relative to the work
directory (absolute when outside it); directories end with "/".

Use Glob to locate files by name; use Grep to search inside files.`

// globArgs are the arguments of the Glob tool.
type globArgs struct {
	Pattern     string `json:"pattern" description:"glob pattern relative to the search directory, e.g. **/*.go"`
	Directory   string `json:"directory,omitempty" description:"absolute directory to search in; defaults to the work directory"`
	IncludeDirs *bool  `json:"include_dirs,omitempty" description:"also list matching directories (default true)"`
}

// NewGlob returns the Glob tool, which lists paths matching a glob pattern.
func NewGlob(env Env) Tool {
	g := &globber{env: env}
	return New("Glob", globDescription, g.run)
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
	includeDirs := in.IncludeDirs == nil || *in.IncludeDirs

	ctx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	top := &globTop{limit: globLimit}
	start := globStart(root, pattern)
	if st, err := os.Stat(start); err == nil && st.IsDir() {
		list := g.listGo
		if g.env.Ripgrep != "" {
			list = g.listRipgrep
		}
		if err := list(ctx, root, start, pattern, includeDirs, top); err != nil {
			if ctx.Err() != nil {
				return searchStopped("Glob", ctx.Err()), nil
			}
			return Errorf("Glob failed: %v", err), nil
		}
	}
	return Text(top.render(pattern, displayPath(g.env.WorkDir, root))), nil
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

// globStart returns the directory the walk starts from: the literal leading directories
// of the pattern, so "src/**/*.go" never reads outside src and a pattern that names
// node_modules explicitly can reach into it.
func globStart(root, pattern string) string {
	base, _ := doublestar.SplitPattern(pattern)
	if base == "." || strings.ContainsAny(base, `\*?[{`) {
		return root
	}
	return filepath.Join(root, filepath.FromSlash(base))
}

// globPrune lists the directories Glob never enters besides ignored ones.
var globPrune = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true}

// listGo walks the tree in Go and feeds matching paths to top.
func (g *globber) listGo(ctx context.Context, root, start, pattern string, includeDirs bool, top *globTop) error {
	w := &treeWalker{prune: globPrune}
	return w.walk(ctx, root, start, func(e walkEntry) error {
		if (e.isDir && !includeDirs) || !doublestar.MatchUnvalidated(pattern, e.rel) {
			return nil
		}
		info, err := os.Lstat(e.path)
		if err != nil {
			return nil
		}
		top.add(globMatch{path: displayPath(g.env.WorkDir, e.path), mtime: info.ModTime(), dir: e.isDir})
		return nil
	})
}

// relSlash returns target relative to base with forward slashes, "" when equal.
func relSlash(base, target string) string {
	rel, err := filepath.Rel(base, target)
	if err != nil || rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

func joinRel(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "/" + b
}

// globMatch is one path found by Glob.
type globMatch struct {
	path  string
	mtime time.Time
	dir   bool
}

// before orders matches newest first, then by path.
func (m globMatch) before(o globMatch) bool {
	if !m.mtime.Equal(o.mtime) {
		return m.mtime.After(o.mtime)
	}
	return m.path < o.path
}

// globTop keeps the newest matches seen so far, so memory stays bounded by the limit
// however many paths match. It is a heap whose root is the entry to evict next.
type globTop struct {
	limit int
	items []globMatch
	total int
}

func (t *globTop) Len() int           { return len(t.items) }
func (t *globTop) Less(i, j int) bool { return t.items[j].before(t.items[i]) }
func (t *globTop) Swap(i, j int)      { t.items[i], t.items[j] = t.items[j], t.items[i] }
func (t *globTop) Push(x any)         { t.items = append(t.items, x.(globMatch)) }
func (t *globTop) Pop() any {
	last := t.items[len(t.items)-1]
	t.items = t.items[:len(t.items)-1]
	return last
}

func (t *globTop) add(m globMatch) {
	t.total++
	if len(t.items) < t.limit {
		heap.Push(t, m)
		return
	}
	if m.before(t.items[0]) {
		t.items[0] = m
		heap.Fix(t, 0)
	}
}

// render formats the kept matches for the model.
func (t *globTop) render(pattern, root string) string {
	if t.total == 0 {
		return fmt.Sprintf("No paths match %q under %s.", pattern, root)
	}
	items := append([]globMatch(nil), t.items...)
	sort.Slice(items, func(i, j int) bool { return items[i].before(items[j]) })
	var b strings.Builder
	for _, m := range items {
		b.WriteString(m.path)
		if m.dir {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	if t.total > len(items) {
		fmt.Fprintf(&b, "\n(Showing the %d most recently modified of %d matches; use a narrower pattern or directory to see the others.)\n",
			len(items), t.total)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

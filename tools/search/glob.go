package search

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

// GlobQuery is one search by name.
type GlobQuery struct {
	// Pattern is a doublestar glob matched against slash-separated paths relative to the
	// root: "*" and "?" stay within one element, "**" spans directories, "{a,b}" lists
	// alternatives. Its literal leading directories are where the walk starts, so a
	// pattern that names node_modules explicitly reaches into it.
	Pattern string
	// IncludeDirs lists matching directories as well as files.
	IncludeDirs bool
	// Limit is how many entries are kept: the most recently modified ones.
	Limit int
}

// Listing is what a Glob found.
type Listing struct {
	// Entries are the kept matches, newest first, then by path.
	Entries []Entry
	// Total counts every match, kept or not.
	Total int
}

// Entry is one path found by Glob.
type Entry struct {
	// Path is shown as DisplayPath makes it.
	Path    string
	ModTime time.Time
	IsDir   bool
}

// globPrune lists the directories Glob never enters besides ignored ones.
var globPrune = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true}

// Glob lists the paths below the directory root that match q.Pattern, skipping ignored
// entries, version-control directories and node_modules. The error is ctx's when the
// search was stopped.
func Glob(ctx context.Context, opts Options, q GlobQuery, root string) (*Listing, error) {
	if !doublestar.ValidatePattern(q.Pattern) {
		return nil, fmt.Errorf("invalid glob %q", q.Pattern)
	}
	top := &topEntries{limit: q.Limit}
	start := globStart(root, q.Pattern)
	if st, err := os.Stat(start); err == nil && st.IsDir() {
		list := listGo
		if opts.Ripgrep != "" {
			list = listRipgrep
		}
		if err := list(ctx, opts, root, start, q, top); err != nil {
			return nil, err
		}
	}
	return top.listing(), nil
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

// listGo walks the tree in Go and feeds matching paths to top.
func listGo(ctx context.Context, opts Options, root, start string, q GlobQuery, top *topEntries) error {
	w := &treeWalker{prune: globPrune}
	return w.walk(ctx, root, start, func(e walkEntry) error {
		if (e.isDir && !q.IncludeDirs) || !doublestar.MatchUnvalidated(q.Pattern, e.rel) {
			return nil
		}
		info, err := os.Lstat(e.path)
		if err != nil {
			return nil
		}
		top.add(Entry{Path: DisplayPath(opts.WorkDir, e.path), ModTime: info.ModTime(), IsDir: e.isDir})
		return nil
	})
}

// before orders entries newest first, then by path.
func (m Entry) before(o Entry) bool {
	if !m.ModTime.Equal(o.ModTime) {
		return m.ModTime.After(o.ModTime)
	}
	return m.Path < o.Path
}

// topEntries keeps the newest entries seen so far, so memory stays bounded by the limit
// however many paths match. It is a heap whose root is the entry to evict next.
type topEntries struct {
	limit int
	items []Entry
	total int
}

func (t *topEntries) Len() int           { return len(t.items) }
func (t *topEntries) Less(i, j int) bool { return t.items[j].before(t.items[i]) }
func (t *topEntries) Swap(i, j int)      { t.items[i], t.items[j] = t.items[j], t.items[i] }
func (t *topEntries) Push(x any)         { t.items = append(t.items, x.(Entry)) }
func (t *topEntries) Pop() any {
	last := t.items[len(t.items)-1]
	t.items = t.items[:len(t.items)-1]
	return last
}

func (t *topEntries) add(m Entry) {
	t.total++
	if len(t.items) < t.limit {
		heap.Push(t, m)
		return
	}
	if len(t.items) > 0 && m.before(t.items[0]) {
		t.items[0] = m
		heap.Fix(t, 0)
	}
}

// listing returns the kept entries in order.
func (t *topEntries) listing() *Listing {
	items := append([]Entry(nil), t.items...)
	sort.Slice(items, func(i, j int) bool { return items[i].before(items[j]) })
	return &Listing{Entries: items, Total: t.total}
}

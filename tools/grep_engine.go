package tools

import (
	"context"
	"errors"
	"runtime"
	"sync"
)

// grepFilters are the glob and type arguments, compiled for the pure-Go walk.
type grepFilters struct {
	glob      ignoreRules // the glob argument as a ripgrep-style override
	whitelist bool        // the glob selects files (no leading "!")
	types     ignoreRules // base-name globs of the type argument
}

func newGrepFilters(q *grepQuery) *grepFilters {
	f := &grepFilters{}
	if q.glob != "" {
		r, _ := parseIgnoreLine(q.glob, true)
		f.glob, f.whitelist = ignoreRules{r}, !r.negate
	}
	for _, g := range q.typeGlobs {
		if r, ok := parseIgnoreLine(g, true); ok {
			f.types = append(f.types, r)
		}
	}
	return f
}

// override applies the glob argument before the ignore files, as ripgrep's --glob does:
// a file it selects is searched even if ignored, one it excludes is skipped, and with a
// selecting glob every file it does not select is skipped too. Directories are only ever
// pruned by an excluding glob.
func (f *grepFilters) override(rel, name string, isDir bool) ignoreVerdict {
	switch f.glob.match(rel, name, isDir) {
	case verdictIgnore: // the glob matched and has no "!": select
		return verdictKeep
	case verdictKeep: // "!glob" matched: exclude
		return verdictIgnore
	}
	if f.whitelist && !isDir {
		return verdictIgnore
	}
	return verdictNone
}

// wantType reports whether a file passes the type argument.
func (f *grepFilters) wantType(name string) bool {
	return len(f.types) == 0 || f.types.match(name, name, false) != verdictNone
}

// grepOutcome is what a worker reports about one file.
type grepOutcome struct {
	file     *grepFile
	tooLarge string
}

// searchGo is the pure-Go engine: one goroutine walks the tree and GOMAXPROCS workers
// search the files it finds. Results arrive in any order; the collector sorts them, so
// the output does not depend on scheduling.
func (g *grepper) searchGo(ctx context.Context, q *grepQuery, root string, isDir bool, col *grepCollector) (*grepSkips, error) {
	skips := &grepSkips{}
	if !isDir {
		g.scanOne(newGrepScanner(q), root, col, skips)
		return skips, ctx.Err()
	}
	filters := newGrepFilters(q)
	walker := &treeWalker{prune: vcsDirs}
	if q.glob != "" {
		walker.override = filters.override
	}

	paths := make(chan string, 256)
	outcomes := make(chan grepOutcome, 64)
	var workers sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		workers.Go(func() {
			s := newGrepScanner(q)
			for p := range paths {
				if ctx.Err() != nil {
					continue // drain so the walker never blocks
				}
				f, err := s.scanFile(p)
				switch {
				case errors.Is(err, errGrepTooLarge):
					outcomes <- grepOutcome{tooLarge: displayPath(g.env.WorkDir, p)}
				case f != nil:
					f.path = displayPath(g.env.WorkDir, p)
					outcomes <- grepOutcome{file: f}
				}
			}
		})
	}
	var secrets []grepSkip // written by the walker goroutine only
	walkDone := make(chan error, 1)
	go func() {
		defer close(paths)
		walkDone <- walker.walk(ctx, root, root, func(e walkEntry) error {
			if e.isDir || !filters.wantType(e.name) {
				return nil
			}
			if reason, secret := sensitive(e.path); secret {
				secrets = append(secrets, grepSkip{path: displayPath(g.env.WorkDir, e.path), reason: reason})
				return nil
			}
			select {
			case paths <- e.path:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	go func() {
		workers.Wait()
		close(outcomes)
	}()
	for o := range outcomes {
		if o.file != nil {
			col.add(o.file)
		} else {
			skips.tooLarge = append(skips.tooLarge, o.tooLarge)
		}
	}
	if err := <-walkDone; err != nil {
		return skips, err
	}
	skips.secrets = secrets
	return skips, ctx.Err()
}

// scanOne searches a single file named by the path argument.
func (g *grepper) scanOne(s *grepScanner, path string, col *grepCollector, skips *grepSkips) {
	f, err := s.scanFile(path)
	switch {
	case errors.Is(err, errGrepTooLarge):
		skips.tooLarge = append(skips.tooLarge, displayPath(g.env.WorkDir, path))
	case f != nil:
		f.path = displayPath(g.env.WorkDir, path)
		col.add(f)
	}
}

package search

import (
	"context"
	"errors"
	"runtime"
	"sync"
)

// filters are the glob and type of a query, compiled for the pure-Go walk.
type filters struct {
	glob      ignoreRules // the glob as a ripgrep-style override
	whitelist bool        // the glob selects files (no leading "!")
	types     ignoreRules // base-name globs of the type
}

func newFilters(g *Grep) *filters {
	f := &filters{}
	if g.q.Glob != "" {
		r, _ := parseIgnoreLine(g.q.Glob, true)
		f.glob, f.whitelist = ignoreRules{r}, !r.negate
	}
	for _, tg := range g.typeGlobs {
		if r, ok := parseIgnoreLine(tg, true); ok {
			f.types = append(f.types, r)
		}
	}
	return f
}

// override applies the glob before the ignore files, as ripgrep's --glob does: a file it
// selects is searched even if ignored, one it excludes is skipped, and with a selecting
// glob every file it does not select is skipped too. Directories are only ever pruned by
// an excluding glob.
func (f *filters) override(rel, name string, isDir bool) ignoreVerdict {
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

// wantType reports whether a file passes the type filter.
func (f *filters) wantType(name string) bool {
	return len(f.types) == 0 || f.types.match(name, name, false) != verdictNone
}

// outcome is what a worker reports about one file.
type outcome struct {
	file     *File
	tooLarge string
}

// searchGo is the pure-Go engine: one goroutine walks the tree and GOMAXPROCS workers
// search the files it finds. Results arrive in any order; the collector sorts them, so
// the output does not depend on scheduling.
func (g *Grep) searchGo(ctx context.Context, opts Options, root string, isDir bool, col *collector) (*skips, error) {
	sk := &skips{}
	if !isDir {
		scanOne(newScanner(g), opts, root, col, sk)
		return sk, ctx.Err()
	}
	filters := newFilters(g)
	walker := &treeWalker{prune: vcsDirs, noIgnore: g.q.IncludeIgnored}
	if g.q.Glob != "" {
		walker.override = filters.override
	}

	paths := make(chan string, 256)
	outcomes := make(chan outcome, 64)
	var workers sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		workers.Go(func() {
			s := newScanner(g)
			for p := range paths {
				if ctx.Err() != nil {
					continue // drain so the walker never blocks
				}
				f, err := s.scanFile(p)
				switch {
				case errors.Is(err, errTooLarge):
					outcomes <- outcome{tooLarge: DisplayPath(opts.WorkDir, p)}
				case f != nil:
					f.Path = DisplayPath(opts.WorkDir, p)
					outcomes <- outcome{file: f}
				}
			}
		})
	}
	var secrets []Skip // written by the walker goroutine only
	walkDone := make(chan error, 1)
	go func() {
		defer close(paths)
		walkDone <- walker.walk(ctx, root, root, func(e walkEntry) error {
			if e.isDir || !filters.wantType(e.name) {
				return nil
			}
			if reason, secret := col.secret(e.path); secret {
				secrets = append(secrets, Skip{Path: DisplayPath(opts.WorkDir, e.path), Reason: reason})
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
			sk.tooLarge = append(sk.tooLarge, o.tooLarge)
		}
	}
	if err := <-walkDone; err != nil {
		return sk, err
	}
	sk.secrets = secrets
	return sk, ctx.Err()
}

// scanOne searches a single file named as the root.
func scanOne(s *scanner, opts Options, path string, col *collector, sk *skips) {
	f, err := s.scanFile(path)
	switch {
	case errors.Is(err, errTooLarge):
		sk.tooLarge = append(sk.tooLarge, DisplayPath(opts.WorkDir, path))
	case f != nil:
		f.Path = DisplayPath(opts.WorkDir, path)
		col.add(f)
	}
}

// Package search is the file search behind the Grep and Glob tools. It walks a tree the
// way ripgrep does: hidden files are included; .gitignore, .ignore, .rgignore and
// .git/info/exclude are honoured (also those of the directories above the start);
// version-control directories and binary files are skipped; symbolic links are neither
// listed nor followed. Files that look like they hold secrets (see Sensitive) are never
// read.
//
// Two engines produce the same results: a pure-Go one, and one that runs rg when
// Options.Ripgrep names it. The tools pick rg when it is installed (LookRipgrep) because
// it is faster on large trees; tests need only the pure-Go engine, and a differential test
// checks the two agree.
//
// Content search:
//
//	g, err := search.NewGrep(search.Query{Pattern: `func \w+`, Mode: search.Content, Limit: 100})
//	m, err := g.Run(ctx, search.Options{WorkDir: wd}, root)
//
// m.Files is the requested page of results, newest file first; the totals count
// everything found. Name search:
//
//	l, err := search.Glob(ctx, search.Options{WorkDir: wd}, search.GlobQuery{Pattern: "**/*.go", Limit: 1000}, root)
//
// Results carry paths as the model should see them (DisplayPath). Formatting them as
// text is left to the caller.
package search

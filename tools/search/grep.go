package search

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/kimi-run/kimi-run/internal/launch"
)

// Options are the settings shared by every search of a run.
type Options struct {
	// WorkDir is the directory result paths are shown relative to (see DisplayPath).
	WorkDir string
	// Ripgrep is the path of the rg executable to run; empty selects the pure-Go engine.
	Ripgrep string
	// Launcher starts rg, as it starts every child of the run (nil: from this process).
	Launcher *launch.Launcher
}

// Matches is what a Grep found: the requested page and the totals of the whole search.
type Matches struct {
	// Files is the page asked for by Query.Offset and Limit, newest file first (then by
	// path). In Content mode the first and last file may hold only part of their lines.
	Files []File
	// TotalFiles counts the files that matched.
	TotalFiles int
	// Total counts the output lines of the whole result: one per file, or one per line
	// (matches and context) in Content mode.
	Total int
	// TotalMatches counts the matches in all files (CountMatches mode; zero otherwise).
	TotalMatches int
	// Secrets are files left out because they look like they hold secrets, by path.
	// The rg engine is told to skip them unseen, so it lists only those it met anyway.
	Secrets []Skip
	// TooLarge are files over MultilineMaxBytes that a Multiline search could not read.
	TooLarge []string
}

// File is what one file contributes to the results.
type File struct {
	// Path is the file as shown to the model (see DisplayPath).
	Path    string
	ModTime time.Time
	// Lines are the shown lines (Content mode).
	Lines []Line
	// Matches counts the file's matches (CountMatches mode; zero otherwise).
	Matches int

	units int // output lines the file produces in full
}

// Line is one shown line of Content mode.
type Line struct {
	Num  int
	Text string // without its line break, invalid UTF-8 replaced, cut at MaxLineBytes
	// Match is set for a matching line, clear for a context line.
	Match bool
}

// Skip is a file left out of a search, and why.
type Skip struct {
	Path, Reason string
}

// Run searches root, a directory or one regular file. A file named as root that looks
// like it holds secrets is searched like any other: refusing it is the caller's choice.
// The error is ctx's when the search was stopped.
func (g *Grep) Run(ctx context.Context, opts Options, root string) (*Matches, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is neither a regular file nor a directory", root)
	}
	col := &collector{keep: g.keep(), content: g.q.Mode == Content, secret: sensitiveBelow(root)}
	run := g.searchGo
	if opts.Ripgrep != "" {
		run = g.searchRipgrep
	}
	skips, err := run(ctx, opts, root, info.IsDir(), col)
	if err != nil {
		return nil, err
	}
	return col.matches(g.q.Offset, skips), nil
}

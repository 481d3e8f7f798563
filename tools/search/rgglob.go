package search

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// listRipgrep lists the files below start with `rg --files` (which applies the ignore
// rules) and matches them against the pattern here, so both engines share one glob
// syntax. rg lists no directories: with IncludeDirs, the parents of listed files are
// matched too, which misses only directories with no files in them.
func listRipgrep(ctx context.Context, opts Options, root, start string, q GlobQuery, top *topEntries) error {
	args := append([]string{"--files", "--null"}, rgCommonArgs...)
	args = append(args, "--glob", "!node_modules", ".")
	baseRel := relSlash(root, start)
	seenDirs := map[string]bool{}
	consider := func(rel string, dir bool) {
		if !doublestar.MatchUnvalidated(q.Pattern, rel) {
			return
		}
		abs := filepath.Join(root, filepath.FromSlash(rel))
		info, err := os.Lstat(abs)
		if err != nil {
			return
		}
		top.add(Entry{Path: DisplayPath(opts.WorkDir, abs), ModTime: info.ModTime(), IsDir: dir})
	}
	err := runRipgrep(ctx, opts, start, args, func(r *bufio.Reader) error {
		for {
			entry, err := r.ReadString(0)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			sub := strings.TrimPrefix(filepath.ToSlash(strings.TrimSuffix(entry, "\x00")), "./")
			consider(joinRel(baseRel, sub), false)
			if !q.IncludeDirs {
				continue
			}
			for d := path.Dir(sub); d != "." && !seenDirs[d]; d = path.Dir(d) {
				seenDirs[d] = true
				consider(joinRel(baseRel, d), true)
			}
		}
	})
	var exitErr *ripgrepExitError
	if errors.As(err, &exitErr) && top.total > 0 {
		return nil
	}
	return err
}

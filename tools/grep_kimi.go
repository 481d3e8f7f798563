package tools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/kimi-run/kimi-run/tools/search"
)

// kimiGrep words a page of results as Kimi CLI's Grep does (tools/file/grep_local.py), for
// its message lines: the lines without a trailing newline as the output, and a message
// made of Kimi's notes (skipped secret files, the count summary, the paging hint), or "No
// matches found" when the page is empty. Totals count result lines, "--" not included.
func (c *grepCall) kimiGrep(m *search.Matches) (string, string) {
	p := c.page(m)
	var notes []string
	if len(m.Secrets) > 0 {
		notes = append(notes, kimiSecretsNote(m.Secrets))
	}
	if c.q.Mode == search.CountMatches {
		notes = append(notes, fmt.Sprintf("Found %d total occurrences across %d files.", m.TotalMatches, m.TotalFiles))
	}
	if next := c.q.Offset + p.shown; p.shown > 0 && next < m.Total {
		notes = append(notes, fmt.Sprintf("Results truncated to %d lines (total: %d). Use offset=%d to see more.", p.shown, m.Total, next))
	}
	msg := strings.Join(notes, " ")
	out := strings.TrimSuffix(p.text, "\n")
	if out == "" {
		if msg == "" {
			return "No matches found", ""
		}
		return "No matches found. " + msg, ""
	}
	return msg, out
}

// kimiSecretsNote names the skipped secret files as Kimi's sensitive_file_warning does:
// base names, sorted, five at most.
func kimiSecretsNote(skipped []search.Skip) string {
	var names []string
	for _, s := range skipped {
		if n := path.Base(strings.ReplaceAll(s.Path, "\\", "/")); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	list := strings.Join(names[:min(len(names), 5)], ", ")
	if len(names) > 5 {
		list += fmt.Sprintf(", ... (%d files total)", len(names))
	}
	return fmt.Sprintf("Skipped %d sensitive file(s) (%s) to protect secrets. These files may contain credentials or private keys.", len(skipped), list)
}

// kimiGrepFailed words a refused or failed search as Kimi's Grep does.
func kimiGrepFailed(why string) string { return "Failed to grep. Error: " + why }

// kimiGrepStopped words a search that ran out of time as Kimi's Grep does; a cancelled
// call has no Kimi wording (Kimi writes no result for it).
func kimiGrepStopped(r Result, err error) Result {
	if errors.Is(err, context.DeadlineExceeded) {
		return r.WithKimi(fmt.Sprintf("Grep timed out after %ds. Try a more specific path or pattern.", int(searchTimeout.Seconds())), "")
	}
	return r
}

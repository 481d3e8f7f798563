package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// searchTimeout bounds one Grep or Glob call, so a search of a huge tree ends with a
// message the model can act on instead of stalling the run.
const searchTimeout = 60 * time.Second

// searchAbs resolves a path argument: relative paths are taken from the work directory.
func searchAbs(workDir, p string) string {
	if p == "" {
		p = "."
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(workDir, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// searchStopped turns the end of a search context into a result for the model.
func searchStopped(tool string, err error) Result {
	if errors.Is(err, context.DeadlineExceeded) {
		return Errorf("%s ran out of time before finishing (limit %s); narrow the path or the pattern", tool, searchTimeout)
	}
	return Errorf("%s was cancelled: %v", tool, err)
}

// countNoun formats a count with a noun, in the plural unless the count is one.
func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

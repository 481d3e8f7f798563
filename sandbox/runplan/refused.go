package runplan

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/kimi-run/kimi-run/tools"
)

// maxRefusedPaths bounds the paths one call's denial names.
const maxRefusedPaths = 5

// refusedWrites wraps a tool that runs confined commands (Shell) so that a write the
// sandbox refused is reported as a denial, where that can be known: the command's output
// says a path was refused ("Permission denied", "Operation not permitted", "Read-only file
// system"), the policy does not allow writing that path, and kimi-run itself, which is not
// confined, may write it, so the file's own permissions are not why. The command ran:
// its result stays what it was, with a note for the model naming what the sandbox refused.
type refusedWrites struct {
	tools.Tool
	plan *Plan
}

// Run implements tools.Tool.
func (w refusedWrites) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	res, err := w.Tool.Run(ctx, args)
	if err != nil || res.Denied != nil {
		return res, err
	}
	paths := w.plan.refusedPaths(res.Output)
	if len(paths) == 0 {
		return res, nil
	}
	msg := fmt.Sprintf("the sandbox (--sandbox %s) refused writing %s: %s", w.plan.policy.Mode, strings.Join(paths, ", "), w.plan.writableNote())
	res.Output += "\n\n<system>" + msg + ".</system>"
	res.Denied = &tools.Denial{Source: tools.DeniedBySandbox, Rule: "sandbox", Message: msg}
	return res, nil
}

// writableNote says where the sandbox lets commands write.
func (s *Plan) writableNote() string {
	roots := s.policy.WritableRoots()
	if len(roots) == 0 {
		return "nothing is writable"
	}
	return "only " + strings.Join(roots, ", ") + " are writable"
}

// refusalLine matches the words a refused open, create or remove is reported with, in C's
// strerror (EACCES, EPERM, and EROFS where the commands' mounts are read-only) and Go's and
// Python's spellings.
var refusalLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)permission denied|operation not permitted|read-only file system`)
})

// quoted finds the quoted parts of a line: 'x', ‘x’, "x", `x'.
var quoted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("'([^']+)'|‘([^’]+)’|\"([^\"]+)\"|`([^']+)'") })

// refusedPaths returns the paths the output says were refused that the sandbox refused,
// at most maxRefusedPaths, in the order they appear.
func (s *Plan) refusedPaths(output string) []string {
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(output, "\n") {
		if !refusalLine().MatchString(line) {
			continue
		}
		for _, c := range pathCandidates(line) {
			abs := c
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(s.workDir, c)
			}
			abs = filepath.Clean(abs)
			if seen[abs] {
				continue
			}
			seen[abs] = true
			if s.sandboxRefuses(abs) {
				out = append(out, c)
				if len(out) == maxRefusedPaths {
					return out
				}
			}
		}
	}
	return out
}

// pathCandidates are the words of a refusal line that may name the path: the quoted
// parts, and the parts between ": " separators (sh's "cannot create PATH" included).
func pathCandidates(line string) []string {
	var out []string
	for _, m := range quoted().FindAllStringSubmatch(line, -1) {
		for _, g := range m[1:] {
			if g != "" {
				out = append(out, g)
			}
		}
	}
	for _, field := range strings.Split(line, ": ") {
		field = strings.TrimSpace(field)
		if refusalLine().MatchString(field) {
			continue
		}
		for _, prefix := range []string{"cannot create ", "can't create ", "open ", "cannot open "} {
			field = strings.TrimPrefix(field, prefix)
		}
		if field != "" && !strings.ContainsAny(field, " \t'\"‘’`") && (strings.Contains(field, "/") || strings.Contains(field, ".")) {
			out = append(out, field)
		}
	}
	return out
}

// sandboxRefuses reports whether the policy keeps commands from writing abs while kimi-run,
// unconfined, could: then the sandbox, and not the file's permissions, refused the write.
func (s *Plan) sandboxRefuses(abs string) bool {
	if s.policy.CanWrite(abs) == nil {
		return false
	}
	// The file, or for one that does not exist the nearest directory that does.
	p := abs
	for {
		if _, err := os.Lstat(p); err == nil {
			return writableBy(p)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}

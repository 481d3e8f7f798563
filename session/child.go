package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kimi-run/kimi-run/internal/beneath"

	"github.com/kimi-run/kimi-run/model"
)

// A subagent's conversation is kept beside its parent's, in subagents/<call id>/ (Kimi CLI's
// layout; Kimi lists only the folders that hold its meta.json, so it passes ours by), and
// written by the same rules: a call saved before it starts, a result as soon as it ends. A
// subagent is never resumed; its file is there so that a restore can tell the model what a
// subagent that a kill interrupted had done.

// childDir is the folder of the subagents' files, next to the context file.
const childDir = "subagents"

// maxChildCalls bounds the calls a restore lists from a subagent's file.
const maxChildCalls = 20

// Child creates the context file of the subagent that the tool call callID runs, with the
// parent's options. A second subagent under the same call id (ids may repeat across
// replies) gets its own folder, <id>.2 and on.
func (s *File) Child(callID string) (*File, error) {
	base := filepath.Join(filepath.Dir(s.path), childDir, childName(callID))
	parent, err := beneath.Dir(filepath.Dir(base), true, 0o700)
	if err != nil {
		return nil, fmt.Errorf("create subagent session directory: %w", err)
	}
	defer parent.Close()
	for n := 1; n <= 1000; n++ {
		dir := childFolder(base, n)
		err := beneath.Mkdir(parent, filepath.Base(dir), 0o700)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create subagent session directory: %w", err)
		}
		c, err := Create(filepath.Join(dir, filepath.Base(s.path)))
		if err != nil {
			return nil, err
		}
		c.redact = s.redact
		return c, nil
	}
	return nil, fmt.Errorf("create subagent session: too many subagents for call %q", callID)
}

func childFolder(base string, n int) string {
	if n == 1 {
		return base
	}
	return fmt.Sprintf("%s.%d", base, n)
}

// childName turns a tool call id (the model's text) into a folder name.
func childName(callID string) string {
	var b strings.Builder
	for _, r := range callID {
		switch {
		case b.Len() >= 64:
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "call"
	}
	return b.String()
}

// childKnown returns a scan.known for the context file at path: for a call that started a
// subagent, the calls that subagent had made and whether each saved a result.
func childKnown(ctx context.Context, path string) func(model.CallSpec) string {
	return func(c model.CallSpec) string {
		base := filepath.Join(filepath.Dir(path), childDir, childName(c.ID))
		found := ""
		for n := 1; n <= 1000; n++ {
			p := filepath.Join(childFolder(base, n), filepath.Base(path))
			if _, err := os.Lstat(p); err != nil {
				break
			}
			found = p
		}
		if found == "" {
			return ""
		}
		r, err := Read(ctx, found)
		if err != nil {
			return ""
		}
		return childSummary(r, strings.TrimPrefix(found, filepath.Dir(path)+string(filepath.Separator)))
	}
}

// childSummary lists a subagent's calls, the latest maxChildCalls of them.
func childSummary(r *Restored, where string) string {
	results := map[string]string{}
	var calls []model.CallSpec
	for _, m := range r.Messages {
		switch m.Role {
		case model.RoleAssistant:
			calls = append(calls, m.ToolCalls...)
		case model.RoleTool:
			results[m.ToolCallID] = m.Content
		}
	}
	if len(calls) == 0 {
		return fmt.Sprintf("The subagent it started had made no tool call yet (its conversation is kept in the session folder as %s).", where)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The subagent it started had made %d tool call(s) (its conversation is kept in the session folder as %s)", len(calls), where)
	if len(calls) > maxChildCalls {
		fmt.Fprintf(&b, "; the last %d", maxChildCalls)
		calls = calls[len(calls)-maxChildCalls:]
	}
	b.WriteString(":")
	for _, c := range calls {
		fmt.Fprintf(&b, "\n- %s %s: ", c.Name, clip(c.Arguments, 200))
		res, ok := results[c.ID]
		switch {
		case !ok || res == interruptedResult:
			b.WriteString("interrupted, no result saved; it may have had effects")
		default:
			first, _, _ := strings.Cut(strings.TrimPrefix(res, "<system>"), "\n")
			b.WriteString("result saved: " + clip(first, 200))
		}
	}
	return b.String()
}

// clip shortens s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

package agent

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kimi-run/kimi-run/internal/infile"
)

// agentsMDMax bounds the AGENTS.md text in the system prompt, headers included.
const agentsMDMax = 32 << 10

// ProjectRoot is the nearest directory at or above dir that holds .git (a directory, or
// the file of a worktree); dir itself when there is none, so that a work dir outside any
// repository never reads files from unrelated parents.
func ProjectRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

type agentsFile struct {
	path, text string
}

// AgentsMD merges the AGENTS.md files from the project root down to workDir: in each
// directory .kimi/AGENTS.md and then AGENTS.md (or agents.md). Each file is introduced by
// a comment naming it; files nearer workDir come later, so the most specific word is the
// last. The result stays within 32 KiB: when it must be cut, the deepest files keep their
// text and the shallowest lose theirs first.
func AgentsMD(workDir string) string {
	root := ProjectRoot(workDir)
	var dirs []string
	for d := workDir; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	var files []agentsFile
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		candidates := []string{filepath.Join(d, ".kimi", "AGENTS.md")}
		for _, name := range []string{"AGENTS.md", "agents.md"} {
			if p := filepath.Join(d, name); isFile(p) {
				candidates = append(candidates, p)
				break
			}
		}
		for _, p := range candidates {
			if text := strings.TrimSpace(readCapped(p, agentsMDMax)); text != "" {
				files = append(files, agentsFile{path: p, text: text})
			}
		}
	}
	return mergeAgentsFiles(files, agentsMDMax)
}

// mergeAgentsFiles joins files root first within budget bytes, spending the budget on the
// deepest (last) files first.
func mergeAgentsFiles(files []agentsFile, budget int) string {
	parts := make([]string, len(files))
	left := budget
	for i := len(files) - 1; i >= 0; i-- {
		header := fmt.Sprintf("<!-- AGENTS.md file: %s -->\n", files[i].path)
		cost := len(header)
		if i < len(files)-1 {
			cost += 2 // the blank line before the next file
		}
		if left-cost <= 0 {
			left = 0
			continue
		}
		left -= cost
		text := files[i].text
		if len(text) > left {
			text = strings.TrimSpace(strings.ToValidUTF8(text[:left], ""))
		}
		left -= len(text)
		if text != "" {
			parts[i] = header + text
		}
	}
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n\n")
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// readCapped reads at most max bytes of the regular file p; "" when it cannot.
func readCapped(p string, max int) string {
	f, err := infile.Open(context.Background(), p, infile.AgentsMD)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, int64(max)))
	return strings.ToValidUTF8(string(b), "")
}

package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// PromptEnv is what the system prompt tells the model about where it runs.
type PromptEnv struct {
	WorkDir string
	Now     time.Time
	OS      string // e.g. "linux/amd64"
	Shell   string // e.g. "bash (/bin/bash)"
	// ToolNames lists the tools offered, for the tool-use rules.
	ToolNames []string
	// Sandbox says what the sandbox allows; empty: nothing is sandboxed.
	Sandbox string
}

// Listing and AGENTS.md bounds keep the prompt small in huge repositories.
const (
	listRootMax  = 30
	listChildMax = 10
	agentsMDMax  = 32 << 10
)

// SystemPrompt renders the system prompt for a print-mode run.
func SystemPrompt(env PromptEnv) string {
	var b strings.Builder
	b.WriteString(`You are kimi-run, a coding agent working without a person present. You were started by a script, a CI job or a shell pipeline with one task, and every tool call you make is approved automatically. Nobody will answer questions: decide for yourself, act, and finish with a clear final answer.

# How to work
- Use the tools to look before you change anything: read the files involved, search the code, run the tests.
- Make the smallest change that does the task well. Keep the project's style. Do not touch unrelated code.
- Check your work: build, run the tests, or read the result back, when the task allows it.
- Several independent tool calls may go in one reply; they run at the same time.
- Tool results may carry notes in <system> tags from the runtime; treat them as facts about the tool call.
- Do not commit, push or rewrite git history unless the task asks for it.
`)
	if env.Sandbox != "" {
		b.WriteString("- " + env.Sandbox + " Avoid destructive commands all the same.\n")
	} else {
		b.WriteString("- Nothing here is sandboxed: commands run on the real machine with your user's rights. Avoid destructive commands (rm -rf outside the work directory, killing unrelated processes, changing system settings).\n")
	}
	b.WriteString(`- Your final message is what the caller receives (often written straight into a file). Make it the answer itself: concise, complete, no chatter about what you are going to do.
- Answer in the language of the task.

# Environment
`)
	fmt.Fprintf(&b, "- Date and time: %s\n", env.Now.Format(time.RFC3339))
	if env.OS != "" {
		fmt.Fprintf(&b, "- Operating system: %s\n", env.OS)
	}
	if env.Shell != "" {
		fmt.Fprintf(&b, "- Shell used by the Shell tool: %s\n", env.Shell)
	}
	fmt.Fprintf(&b, "- Working directory: %s (relative paths resolve against it)\n", env.WorkDir)
	if len(env.ToolNames) > 0 {
		fmt.Fprintf(&b, "- Tools: %s\n", strings.Join(env.ToolNames, ", "))
	}
	b.WriteString("\nTop of the working directory (two levels, shortened):\n```\n")
	b.WriteString(listDir(env.WorkDir))
	b.WriteString("```\n")
	if md := agentsMD(env.WorkDir); md != "" {
		b.WriteString("\n# Project instructions (AGENTS.md)\nThe project's maintainers wrote these for agents. Follow them unless the task says otherwise.\n\n````````\n")
		b.WriteString(md)
		if !strings.HasSuffix(md, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("````````\n")
	}
	return b.String()
}

// listDir lists dir two levels deep with bounded entry counts.
func listDir(dir string) string {
	var b strings.Builder
	entries := readDirSorted(dir)
	for i, e := range entries {
		if i == listRootMax {
			fmt.Fprintf(&b, "... and %d more\n", len(entries)-listRootMax)
			break
		}
		if !e.IsDir() {
			b.WriteString(e.Name() + "\n")
			continue
		}
		b.WriteString(e.Name() + "/\n")
		if skipListing(e.Name()) {
			continue
		}
		kids := readDirSorted(filepath.Join(dir, e.Name()))
		for j, k := range kids {
			if j == listChildMax {
				fmt.Fprintf(&b, "  ... and %d more\n", len(kids)-listChildMax)
				break
			}
			name := k.Name()
			if k.IsDir() {
				name += "/"
			}
			b.WriteString("  " + name + "\n")
		}
	}
	if len(entries) == 0 {
		b.WriteString("(empty)\n")
	}
	return b.String()
}

func skipListing(name string) bool {
	switch name {
	case ".git", "node_modules", ".venv", "vendor", "__pycache__":
		return true
	}
	return false
}

func readDirSorted(dir string) []os.DirEntry {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries
}

// agentsMD reads AGENTS.md (or agents.md) from the work dir, capped.
func agentsMD(dir string) string {
	for _, name := range []string{"AGENTS.md", "agents.md"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		buf := make([]byte, agentsMDMax+1)
		n, _ := readFull(f, buf)
		f.Close()
		s := strings.ToValidUTF8(string(buf[:min(n, agentsMDMax)]), "")
		if n > agentsMDMax {
			s += "\n[AGENTS.md truncated at 32 KiB]\n"
		}
		return s
	}
	return ""
}

func readFull(f *os.File, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

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
	// GOOS is the operating system as Go names it (runtime.GOOS).
	GOOS string
	// ShellName and ShellPath are the shell the Shell tool runs, e.g. bash and /bin/bash.
	ShellName, ShellPath string
	// AddDirs are the extra directories of --add-dir, absolute.
	AddDirs []string
	// Skills is the list of skills as the prompt shows it ("" when there are none).
	Skills string
	// Sandbox says what the sandbox allows; empty: nothing is sandboxed.
	Sandbox string
	// NoAgentsMD leaves the AGENTS.md files out (--bare): KIMI_AGENTS_MD is empty.
	NoAgentsMD bool
}

// Listing bounds keep the prompt small in huge repositories.
const (
	listRootMax  = 30
	listChildMax = 10
)

// PromptVars returns the built-in variables of a system prompt template, under the names
// Kimi CLI gives them, so that a Kimi agent file's prompt renders unchanged.
func PromptVars(env PromptEnv) map[string]string {
	skills := env.Skills
	if strings.TrimSpace(skills) == "" {
		skills = "No skills found."
	}
	shell := env.ShellName
	if env.ShellPath != "" {
		shell += " (`" + env.ShellPath + "`)"
	}
	agentsMD := ""
	if !env.NoAgentsMD {
		agentsMD = AgentsMD(env.WorkDir)
	}
	return map[string]string{
		"KIMI_NOW":                  env.Now.Format(time.RFC3339),
		"KIMI_WORK_DIR":             env.WorkDir,
		"KIMI_WORK_DIR_LS":          strings.TrimRight(listDir(env.WorkDir), "\n"),
		"KIMI_AGENTS_MD":            agentsMD,
		"KIMI_SKILLS":               skills,
		"KIMI_ADDITIONAL_DIRS_INFO": addDirsInfo(env.AddDirs),
		"KIMI_OS":                   osKind(env.GOOS),
		"KIMI_SHELL":                shell,
		// kimi-run's own: what --sandbox allows, empty when it is off.
		"KIMI_SANDBOX": env.Sandbox,
	}
}

// osKind names the operating system the way Kimi CLI's prompts test it ("Windows").
func osKind(goos string) string {
	switch goos {
	case "linux":
		return "Linux"
	case "darwin":
		return "macOS"
	case "windows":
		return "Windows"
	}
	return goos
}

// addDirsInfo lists each extra directory with the top of its contents.
func addDirsInfo(dirs []string) string {
	parts := make([]string, 0, len(dirs))
	for _, d := range dirs {
		parts = append(parts, fmt.Sprintf("### `%s`\n\n```\n%s\n```", d, strings.TrimRight(listDir(d), "\n")))
	}
	return strings.Join(parts, "\n\n")
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

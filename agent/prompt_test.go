package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestAgentsMDMergesRootToWorkDir(t *testing.T) {
	above := t.TempDir()
	repo := filepath.Join(above, "repo")
	work := filepath.Join(repo, "services", "api")
	writeFile(t, filepath.Join(above, "AGENTS.md"), "outside the repository\n")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "AGENTS.md"), "root rules\n")
	writeFile(t, filepath.Join(repo, ".kimi", "AGENTS.md"), "kimi root rules\n")
	writeFile(t, filepath.Join(repo, "services", "agents.md"), "services rules\n")
	writeFile(t, filepath.Join(work, "AGENTS.md"), "api rules\n")
	writeFile(t, filepath.Join(work, ".kimi", "AGENTS.md"), "   \n") // blank: skipped

	got := AgentsMD(work)
	want := strings.Join([]string{
		"<!-- AGENTS.md file: " + filepath.Join(repo, ".kimi", "AGENTS.md") + " -->\nkimi root rules",
		"<!-- AGENTS.md file: " + filepath.Join(repo, "AGENTS.md") + " -->\nroot rules",
		"<!-- AGENTS.md file: " + filepath.Join(repo, "services", "agents.md") + " -->\nservices rules",
		"<!-- AGENTS.md file: " + filepath.Join(work, "AGENTS.md") + " -->\napi rules",
	}, "\n\n")
	if got != want {
		t.Errorf("AgentsMD:\n%s\n--- want ---\n%s", got, want)
	}
}

func TestAgentsMDWithoutRepositoryReadsOnlyTheWorkDir(t *testing.T) {
	above := t.TempDir()
	work := filepath.Join(above, "w")
	writeFile(t, filepath.Join(above, "AGENTS.md"), "not mine\n")
	writeFile(t, filepath.Join(work, "AGENTS.md"), "mine\n")
	if got := AgentsMD(work); strings.Contains(got, "not mine") || !strings.Contains(got, "mine") {
		t.Errorf("AgentsMD = %q", got)
	}
	if got := AgentsMD(t.TempDir()); got != "" {
		t.Errorf("AgentsMD of an empty dir = %q", got)
	}
}

func TestAgentsMDKeepsTheDeepestWhenCut(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(repo, "sub")
	writeFile(t, filepath.Join(repo, "AGENTS.md"), strings.Repeat("r", 20<<10))
	writeFile(t, filepath.Join(work, "AGENTS.md"), strings.Repeat("d", 20<<10))
	got := AgentsMD(work)
	if len(got) > agentsMDMax {
		t.Errorf("merged size %d over the bound %d", len(got), agentsMDMax)
	}
	if strings.Count(got, "d") < 20<<10 {
		t.Errorf("the deepest file was cut: %d of its bytes kept", strings.Count(got, "d"))
	}
	if n := strings.Count(got, "r"); n == 0 || n >= 20<<10 {
		t.Errorf("the root file kept %d bytes, want a cut part", n)
	}
}

func TestPromptVars(t *testing.T) {
	work := t.TempDir()
	extra := t.TempDir()
	writeFile(t, filepath.Join(extra, "lib.go"), "package lib\n")
	writeFile(t, filepath.Join(work, "main.go"), "package main\n")
	now := time.Date(2026, 11, 22, 10, 1, 2, 0, time.FixedZone("", 3600))
	v := PromptVars(PromptEnv{WorkDir: work, Now: now, GOOS: "darwin", ShellName: "bash", ShellPath: "/bin/bash", AddDirs: []string{extra}})
	checks := map[string]string{
		"KIMI_NOW":         "2026-11-22T10:01:02+01:00",
		"KIMI_WORK_DIR":    work,
		"KIMI_WORK_DIR_LS": "main.go",
		"KIMI_OS":          "macOS",
		"KIMI_SHELL":       "bash (`/bin/bash`)",
		"KIMI_SKILLS":      "No skills found.",
		"KIMI_AGENTS_MD":   "",
	}
	for k, want := range checks {
		if v[k] != want {
			t.Errorf("%s = %q, want %q", k, v[k], want)
		}
	}
	if info := v["KIMI_ADDITIONAL_DIRS_INFO"]; !strings.Contains(info, "### `"+extra+"`") || !strings.Contains(info, "lib.go") {
		t.Errorf("KIMI_ADDITIONAL_DIRS_INFO = %q", info)
	}
}

package agentspec

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// builtinVars are the KIMI_* variables every prompt may use.
func builtinVars() map[string]string {
	return map[string]string{
		"KIMI_NOW": "2026-11-22T10:00:00Z", "KIMI_WORK_DIR": "/work", "KIMI_WORK_DIR_LS": "main.go",
		"KIMI_AGENTS_MD": "", "KIMI_SKILLS": "No skills found.", "KIMI_ADDITIONAL_DIRS_INFO": "",
		"KIMI_OS": "Linux", "KIMI_SHELL": "bash (`/bin/bash`)", "KIMI_SANDBOX": "",
	}
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBuiltinAgents(t *testing.T) {
	def, err := Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	want := builtinTools(toolSets["@builtin"]) // TestBuiltinAgentsFollowTheTable holds the lists
	if got := def.ToolNames(); !reflect.DeepEqual(got, want) {
		t.Errorf("default tools = %v", got)
	}
	var names []string
	for _, s := range def.Subagents {
		names = append(names, s.Name)
		if s.Description == "" || s.Spec == nil || s.Spec.Subagents != nil {
			t.Errorf("subagent %+v", s)
		}
		if slices.Contains(s.Spec.ToolNames(), "Agent") || slices.Contains(s.Spec.ToolNames(), "SendDMail") {
			t.Errorf("subagent %s may start subagents: %v", s.Name, s.Spec.ToolNames())
		}
	}
	if !reflect.DeepEqual(names, []string{"coder", "explore", "plan"}) {
		t.Errorf("subagents = %v", names)
	}
	if len(def.Warnings) != 0 {
		t.Errorf("warnings = %v", def.Warnings)
	}
	prompt, err := def.SystemPrompt(builtinVars())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"You are kimi-run", "Operating system: Linux", "bash (`/bin/bash`)", "/work", "main.go", "No skills found."} {
		if !strings.Contains(prompt, want) {
			t.Errorf("default prompt lacks %q:\n%s", want, prompt)
		}
	}
	for _, absent := range []string{"${", "{%", "AGENTS.md)", "Additional directories", "\n\n\n"} {
		if strings.Contains(prompt, absent) {
			t.Errorf("default prompt holds %q:\n%s", absent, prompt)
		}
	}
	coder := def.Subagents[0].Spec
	sub, err := coder.SystemPrompt(builtinVars())
	if err != nil || !strings.Contains(sub, "You are a subagent") {
		t.Errorf("coder prompt = %q, %v", sub, err)
	}

	okabe, err := Builtin("okabe")
	if err != nil {
		t.Fatal(err)
	}
	if got := okabe.ToolNames(); !slices.Contains(got, "SendDMail") || len(got) != len(want)+1 || len(okabe.Subagents) != 3 {
		t.Errorf("okabe = %v with %d subagents", got, len(okabe.Subagents))
	}
	if _, err := Builtin("mayuri"); err == nil {
		t.Error("an unknown built-in agent loaded")
	}
}

func TestAgentFileExtendsDefault(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "prompts/base.md", "Rules for ${TEAM}.\n{% include \"common.md\" %}\nWork in ${KIMI_WORK_DIR}.\n{% if KIMI_OS == \"Windows\" %}Use forward slashes.{% endif +%}\nBe ${TONE}.")
	write(t, dir, "prompts/common.md", "Common part.\n")
	write(t, dir, "team.yaml", `version: 1
agent:
  extend: default
  system_prompt_path: ./prompts/base.md
  system_prompt_args:
    TEAM: infra
    TONE: brief
`)
	file := write(t, dir, "agents/ci.yaml", `version: 1
agent:
  extend: ../team.yaml
  name: ci-bot
  system_prompt_args:
    TONE: terse
  exclude_tools:
    - kimi_cli.tools.shell:Shell
    - "Task"
  subagents:
    reviewer:
      path: ./reviewer.yaml
      description: Reviews a diff.
`)
	write(t, dir, "agents/reviewer.yaml", `version: 1
agent:
  extend: default
  system_prompt_args:
    ROLE_ADDITIONAL: You review.
  allowed_tools: ["kimi_cli.tools.file:ReadFile", Grep]
`)
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "ci-bot" || s.File != file {
		t.Errorf("name %q file %q", s.Name, s.File)
	}
	want := slices.DeleteFunc(builtinTools(toolSets["@builtin"]), func(n string) bool { return n == "Shell" || n == "Agent" })
	if got := s.ToolNames(); !reflect.DeepEqual(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}
	if s.PromptArgs["TEAM"] != "infra" || s.PromptArgs["TONE"] != "terse" || s.PromptArgs["ROLE_ADDITIONAL"] != "" {
		t.Errorf("args were not merged down the chain: %v", s.PromptArgs)
	}
	got, err := s.SystemPrompt(builtinVars())
	if err != nil {
		t.Fatal(err)
	}
	if want := "Rules for infra.\nCommon part.\nWork in /work.\n\nBe terse."; got != want {
		t.Errorf("prompt = %q, want %q", got, want)
	}
	if len(s.Subagents) != 1 || s.Subagents[0].Name != "reviewer" || s.Subagents[0].Description != "Reviews a diff." {
		t.Fatalf("subagents = %+v", s.Subagents)
	}
	rev := s.Subagents[0].Spec
	if got := rev.ToolNames(); !reflect.DeepEqual(got, []string{"ReadFile", "Grep"}) {
		t.Errorf("reviewer tools = %v", got)
	}
	if p, err := rev.SystemPrompt(builtinVars()); err != nil || !strings.Contains(p, "You review.") {
		t.Errorf("reviewer prompt = %q, %v", p, err)
	}
}

func TestAgentFileUndefinedVariable(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "p.md", "Hello ${WHO}")
	file := write(t, dir, "a.yaml", "version: 1\nagent:\n  extend: default\n  system_prompt_path: p.md\n")
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.SystemPrompt(builtinVars())
	if !errors.Is(err, ErrUndefined) || !strings.Contains(err.Error(), "WHO") || !strings.Contains(err.Error(), "p.md:1") {
		t.Errorf("error = %v", err)
	}
}

func TestAgentFileWarnings(t *testing.T) {
	dir := t.TempDir()
	file := write(t, dir, "a.yaml", `version: "1"
agent:
  extend: default
  model: kimi-k2
  exclude_tool: [Shell]
extra: 1
`)
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(s.Warnings, "\n")
	for _, want := range []string{"agent.model is ignored", "agent.exclude_tool is ignored", `"extra" is ignored`} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}
}

func TestAgentFileErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "loop-a.yaml", "version: 1\nagent:\n  extend: loop-b.yaml\n")
	write(t, dir, "loop-b.yaml", "version: 1\nagent:\n  extend: loop-a.yaml\n")
	tests := []struct{ name, text, want string }{
		{"version", "version: 2\nagent:\n  extend: default\n", "version 2 is not supported"},
		{"yaml", "version: 1\nagent: [\n", "invalid YAML"},
		{"no agent", "version: 1\n", "no agent: section"},
		{"standalone without tools", "version: 1\nagent:\n  name: x\n  system_prompt_path: p.md\n", "agent.tools is required"},
		{"missing base", "version: 1\nagent:\n  extend: ./gone.yaml\n", "gone.yaml"},
		{"cycle", "version: 1\nagent:\n  extend: loop-a.yaml\n", "too deep"},
		{"bad tools", "version: 1\nagent:\n  extend: default\n  tools: Shell\n", "must be a list"},
		{"subagent without path", "version: 1\nagent:\n  extend: default\n  subagents:\n    x: {description: d}\n", "agent.subagents.x.path is required"},
		{"missing subagent file", "version: 1\nagent:\n  extend: default\n  subagents:\n    x: {path: ./x.yaml, description: d}\n", "subagent x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := write(t, dir, strings.ReplaceAll(tt.name, " ", "-")+".yaml", tt.text)
			_, err := Load(file)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := Load(filepath.Join(dir, "nope.yaml")); err == nil {
		t.Error("a missing agent file loaded")
	}
}

// TestBuiltinFilesQuoteTexts holds the built-in agent files to quoted strings: every run
// decodes them, and go-yaml scans a block scalar (| or >) slowly.
func TestBuiltinFilesQuoteTexts(t *testing.T) {
	files, err := fs.Glob(builtinFS, "builtin/*/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	for _, name := range files {
		data, err := builtinFS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if v := strings.TrimSpace(line); !strings.HasPrefix(v, "#") && strings.ContainsAny(v[strings.LastIndex(v, ":")+1:], "|>") {
				t.Errorf("%s:%d: a block scalar; write the text as a quoted string: %s", name, i+1, v)
			}
		}
	}
}

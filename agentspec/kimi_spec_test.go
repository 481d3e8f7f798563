package agentspec

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestKimiAgentSpecCases follows Kimi CLI's tests/core/test_agent_spec.py, one case per
// test function: the same agent files load to the same name, tools and excluded tools, or
// are refused naming what is wrong. Tools are kimi-run's canonical names.
func TestKimiAgentSpecCases(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "system.md", "You are a test agent.")
	base := "version: 1\nagent:\n  name: \"Test Agent\"\n  system_prompt_path: ./system.md\n  tools: [\"kimi_cli.tools.think:Think\"]\n"
	tests := []struct {
		kimiTest string
		text     string
		wantErr  string // "" loads
		name     string
		tools    []string
		exclude  []string
	}{
		{kimiTest: "test_load_agent_spec_basic", text: base, name: "Test Agent", tools: []string{"Think"}},
		{kimiTest: "test_load_agent_spec_missing_name",
			text: "version: 1\nagent:\n  system_prompt_path: ./system.md\n  tools: [\"kimi_cli.tools.think:Think\"]\n", wantErr: "name"},
		{kimiTest: "test_load_agent_spec_missing_system_prompt",
			text: "version: 1\nagent:\n  name: \"Test Agent\"\n  tools: [\"kimi_cli.tools.think:Think\"]\n", wantErr: "system_prompt_path"},
		{kimiTest: "test_load_agent_spec_missing_tools",
			text: "version: 1\nagent:\n  name: \"Test Agent\"\n  system_prompt_path: ./system.md\n", wantErr: "tools"},
		{kimiTest: "test_load_agent_spec_with_exclude_tools",
			text: "version: 1\nagent:\n  name: \"Test Agent\"\n  system_prompt_path: ./system.md\n  tools: [\"kimi_cli.tools.think:Think\", \"kimi_cli.tools.shell:Shell\"]\n  exclude_tools: [\"kimi_cli.tools.shell:Shell\"]\n",
			name: "Test Agent", tools: []string{"Think", "Shell"}, exclude: []string{"Shell"}},
		{kimiTest: "test_load_agent_spec_extension",
			text: "version: 1\nagent:\n  extend: ./base.yaml\n  name: \"Extended Agent\"\n", name: "Extended Agent", tools: []string{"Think"}},
		{kimiTest: "test_load_agent_spec_unsupported_version",
			text: strings.Replace(base, "version: 1", "version: 2", 1), wantErr: "version 2"},
	}
	write(t, dir, "base.yaml", base)
	for i, tt := range tests {
		t.Run(tt.kimiTest, func(t *testing.T) {
			file := write(t, dir, filepath.Join("case", string(rune('a'+i))+".yaml"), strings.ReplaceAll(tt.text, "./", "../"))
			s, err := Load(file)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if s.Name != tt.name || !slices.Equal(s.Tools, tt.tools) || !slices.Equal(s.ExcludeTools, tt.exclude) {
				t.Errorf("spec name %q tools %v exclude %v; want %q %v %v", s.Name, s.Tools, s.ExcludeTools, tt.name, tt.tools, tt.exclude)
			}
		})
	}
	// test_load_agent_spec_nonexistent_file: the message names the file.
	if _, err := Load("/nonexistent/agent.yaml"); err == nil || !strings.Contains(err.Error(), "/nonexistent/agent.yaml") {
		t.Errorf("missing file: error %v", err)
	}
	// test_load_agent_spec_default_extension: extending default keeps its tools and
	// subagents, merges the prompt arguments and excludes what the file excludes.
	file := write(t, dir, "extending.yaml", "version: 1\nagent:\n  extend: default\n  system_prompt_args:\n    CUSTOM_ARG: \"custom_value\"\n  exclude_tools:\n    - \"kimi_cli.tools.web:SearchWeb\"\n    - \"kimi_cli.tools.web:FetchURL\"\n")
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if s.PromptArgs["CUSTOM_ARG"] != "custom_value" || !slices.Contains(s.Tools, "Shell") || !slices.Contains(s.ExcludeTools, "FetchURL") {
		t.Errorf("extending default: args %v tools %v exclude %v", s.PromptArgs, s.Tools, s.ExcludeTools)
	}
	var coder bool
	for _, sub := range s.Subagents {
		coder = coder || sub.Name == "coder"
	}
	if !coder {
		t.Errorf("extending default lost the coder subagent: %+v", s.Subagents)
	}
}

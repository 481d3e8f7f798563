package tools

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestDescriptionsStateTheLimits checks that every limit a description or argument
// description quotes is the value the code enforces.
func TestDescriptionsStateTheLimits(t *testing.T) {
	tools := map[string]Tool{}
	for _, tool := range Builtins(Env{WorkDir: t.TempDir(), Media: MediaSupport{Images: true}, Search: &Service{}}) {
		tools[tool.Name()] = tool
	}
	tests := []struct {
		tool        string
		description []string
		schema      []string
	}{
		{tool: "FetchURL", description: []string{
			fmt.Sprintf("time out after %d seconds", int(fetchTimeout.Seconds())),
			fmt.Sprintf("cut at %d MiB", fetchMaxBytes>>20),
		}},
		{tool: "ReadMediaFile", description: []string{fmt.Sprintf("Files up to %d MiB are read", MediaMaxBytes>>20)}},
		{tool: "SearchWeb",
			description: []string{fmt.Sprintf("(default %d, at most %d)", searchDefaultLimit, searchMaxLimit)},
			schema:      []string{fmt.Sprintf("1 to %d (default %d)", searchMaxLimit, searchDefaultLimit)}},
		{tool: "Glob", description: []string{fmt.Sprintf("at most %d are returned", globLimit)}},
		{tool: "Grep",
			description: []string{fmt.Sprintf("head_limit (default %d; 0 for up to %d)", grepDefaultLimit, grepMaxUnits)},
			schema:      []string{fmt.Sprintf("(default %d; 0 for up to %d)", grepDefaultLimit, grepMaxUnits)}},
		{tool: "ReadFile",
			description: []string{
				fmt.Sprintf("(at least -%d)", ReadMaxLines),
				fmt.Sprintf("default and maximum %d", ReadMaxLines),
				fmt.Sprintf("at most %d lines and %d KiB", ReadMaxLines, ReadMaxBytes>>10),
				fmt.Sprintf("longer than %d characters", ReadMaxLineChars),
			},
			schema: []string{fmt.Sprintf("default and maximum %d", ReadMaxLines)}},
		{tool: "Shell",
			description: []string{
				"cut to 40000 bytes, its start and its end",
				fmt.Sprintf("default %d, at most %d", ShellDefaultTimeout, ShellMaxTimeout),
			},
			schema: []string{fmt.Sprintf("default %d, maximum %d", ShellDefaultTimeout, ShellMaxTimeout)}},
	}
	for _, tt := range tests {
		tool := tools[tt.tool]
		if tool == nil {
			t.Errorf("no %s tool", tt.tool)
			continue
		}
		for _, want := range tt.description {
			if !strings.Contains(tool.Description(), want) {
				t.Errorf("%s description lacks %q:\n%s", tt.tool, want, tool.Description())
			}
		}
		for _, want := range tt.schema {
			if !strings.Contains(string(tool.Schema()), want) {
				t.Errorf("%s schema lacks %q:\n%s", tt.tool, want, tool.Schema())
			}
		}
	}
	placeholder := regexp.MustCompile(`\{[a-z_-]+\}`)
	for name, tool := range tools {
		if p := placeholder.FindString(tool.Description() + string(tool.Schema())); p != "" {
			t.Errorf("%s still shows the placeholder %s", name, p)
		}
	}
}

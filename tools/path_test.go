package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolvePath(t *testing.T) {
	work := t.TempDir()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.txt")
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{name: "relative", in: "a/b.txt", want: filepath.Join(work, "a", "b.txt")},
		{name: "dot", in: ".", want: work},
		{name: "inner dot-dot stays inside", in: "a/../b.txt", want: filepath.Join(work, "b.txt")},
		{name: "absolute outside allowed", in: outside, want: outside},
		{name: "home", in: "~/notes.txt", want: filepath.Join(home, "notes.txt")},
		{name: "escape refused", in: "../x.txt", wantErr: true},
		{name: "deep escape refused", in: "a/../../x.txt", wantErr: true},
		{name: "bare dot-dot refused", in: "..", wantErr: true},
		{name: "empty refused", in: "  ", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolvePath(work, tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ResolvePath(%q) = %q, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ResolvePath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// mustCall runs tool with args (marshalled to JSON unless already a string) and fails
// the test on a Go error, which no argument mistake should cause.
func mustCall(t testing.TB, tool Tool, args any) Result {
	t.Helper()
	var raw []byte
	if s, ok := args.(string); ok {
		raw = []byte(s)
	} else {
		var err error
		if raw, err = json.Marshal(args); err != nil {
			t.Fatal(err)
		}
	}
	res, err := tool.Run(context.Background(), raw)
	if err != nil {
		t.Fatalf("%s(%s): Go error %v", tool.Name(), raw, err)
	}
	return res
}

// writeTestFile creates dir/name with content and returns its path.
func writeTestFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// An --add-dir directory is part of the workspace: relative paths may lead into it as
// into the work dir, while other ".." paths stay refused.
func TestAddDirsAcceptRelativePaths(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "app")
	lib := filepath.Join(root, "lib")
	other := filepath.Join(root, "other")
	for _, d := range []string{work, lib, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeTestFile(t, lib, "util.go", "package lib\n")
	writeTestFile(t, other, "x.txt", "x\n")
	env := Env{WorkDir: work, AddDirs: []string{lib}}

	if res := mustCall(t, NewReadFile(env), map[string]any{"path": "../lib/util.go"}); res.IsError || !strings.Contains(res.Output, "package lib") {
		t.Errorf("reading ../lib/util.go = %+v", res)
	}
	if res := mustCall(t, NewWriteFile(env), map[string]any{"path": "../lib/new.go", "content": "package lib // new\n"}); res.IsError {
		t.Errorf("writing ../lib/new.go = %+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(lib, "new.go")); err != nil || string(b) != "package lib // new\n" {
		t.Errorf("lib/new.go = %q, %v", b, err)
	}
	if res := mustCall(t, NewStrReplaceFile(env), map[string]any{"path": "../lib/util.go", "edit": map[string]any{"old": "lib", "new": "util"}}); res.IsError {
		t.Errorf("editing ../lib/util.go = %+v", res)
	}
	if res := mustCall(t, NewReadFile(env), map[string]any{"path": "../other/x.txt"}); !res.IsError {
		t.Errorf("../other/x.txt outside the workspace was read: %+v", res)
	}
	// Without the add-dir the same path is refused.
	if res := mustCall(t, NewReadFile(Env{WorkDir: work}), map[string]any{"path": "../lib/util.go"}); !res.IsError {
		t.Errorf("../lib/util.go was read without --add-dir: %+v", res)
	}
}

func TestCanonicalName(t *testing.T) {
	tests := map[string]string{
		"Shell":                              "Shell",
		" kimi_cli.tools.shell:Shell ":       "Shell",
		"kimi_cli.tools.file:StrReplaceFile": "StrReplaceFile",
		"Task":                               "Agent",
		"kimi_cli.tools.multiagent:Task":     "Agent",
		"kimi_cli.tools.agent:Agent":         "Agent",
		"kimi_cli.tools.web:SearchWeb":       "SearchWeb",
		"NoSuchTool":                         "NoSuchTool",
	}
	for in, want := range tests {
		if got := CanonicalName(in); got != want {
			t.Errorf("CanonicalName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := NameAliases("Agent"); len(got) != 1 || got[0] != "Task" {
		t.Errorf("NameAliases(Agent) = %v", got)
	}
	if got := NameAliases("Shell"); len(got) != 0 {
		t.Errorf("NameAliases(Shell) = %v", got)
	}
}

func TestAgentToolListsSubagentTypes(t *testing.T) {
	tool := NewAgent(Env{SubagentTypes: []SubagentType{{Name: "coder", Description: "General\n  work."}, {Name: "reviewer", Description: "Reviews diffs."}}})
	if tool.Name() != "Agent" {
		t.Fatalf("name = %s", tool.Name())
	}
	d := tool.Description()
	for _, want := range []string{"- coder: General work.", "- reviewer: Reviews diffs."} {
		if !strings.Contains(d, want) {
			t.Errorf("description lacks %q:\n%s", want, d)
		}
	}
	var schema struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(tool.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"description", "prompt", "subagent_type"} {
		if _, ok := schema.Properties[p]; !ok {
			t.Errorf("schema lacks %s: %s", p, tool.Schema())
		}
	}
}

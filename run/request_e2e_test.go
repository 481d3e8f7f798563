package run_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/agentspec"
	"github.com/kimi-run/kimi-run/internal/scripted"
)

func TestThinkingSwitch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		flag string
		want any
	}{
		{flag: "", want: nil},
		{flag: "--thinking", want: map[string]any{"type": "enabled"}},
		{flag: "--no-thinking", want: map[string]any{"type": "disabled"}},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			args := []string{"-p", "x"}
			if tt.flag != "" {
				args = append(args, tt.flag)
			}
			if r := kimi(t, srv, invocation{args: args}); r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			body := srv.Requests()[0].Body
			got, present := body["thinking"]
			if tt.want == nil {
				if present {
					t.Errorf("thinking sent without the flag: %v", got)
				}
				return
			}
			if m, _ := got.(map[string]any); m == nil || m["type"] != tt.want.(map[string]any)["type"] {
				t.Errorf("thinking = %v, want %v", got, tt.want)
			}
			if body["model"] != "test-model" || body["stream"] != true {
				t.Errorf("merging the body lost fields: %v", body)
			}
		})
	}
}

func TestSystemPrompt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Always run `make check` before answering.\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "pkg", "parser"), 0o755)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	srv := scripted.New(t, scripted.Text("ok"))
	if r := kimi(t, srv, invocation{dir: dir, args: []string{"-p", "x"}}); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sys := srv.Requests()[0].Messages()[0]["content"].(string)
	for _, want := range []string{"make check", dir, "go.mod", "pkg/", "  parser/", "Shell"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	tools := srv.Requests()[0].Body["tools"].([]any)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	// Every tool of the default agent (the built-ins less the opt-in ones).
	def, err := agentspec.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	// ReadMediaFile and SearchWeb are the default's too, offered with image_in and a search
	// service, which this run has not.
	want := slices.DeleteFunc(def.ToolNames(), func(n string) bool { return !slices.Contains(defaultToolsBut(), n) })
	if !slices.Equal(names, want) || !slices.Contains(want, "Shell") || len(want) != len(def.ToolNames())-2 {
		t.Errorf("tools offered = %v, want %v", names, want)
	}
}

package runplan

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/policy"
)

type noSubagent struct{}

func (noSubagent) RunSubagent(context.Context, tools.SubagentCall) (tools.SubagentAnswer, error) {
	return tools.SubagentAnswer{}, errors.New("no subagents here")
}

type noDMail struct{}

func (noDMail) SendDMail(string, int) error { return errors.New("no D-Mail here") }

// everyBuiltin is the whole built-in table as a run that offers every tool builds it.
func everyBuiltin(env tools.Env) []tools.Tool {
	env.Subagent, env.DMail, env.Plan = noSubagent{}, noDMail{}, tools.NewPlanMode(filepath.Join(os.TempDir(), "kimi-run-test-plan.md"))
	env.Media, env.Search = tools.MediaSupport{Images: true, Videos: true}, &tools.Service{URL: "http://127.0.0.1:1"}
	ts := tools.Builtins(env)
	if len(ts) != len(tools.AllBuiltins()) {
		panic("a built-in is not offered even with every delegate, media and service")
	}
	return ts
}

// Every built-in that writes files is held by --sandbox, whatever its name: one that works
// in kimi-run's process is refused a path outside the writable roots before it runs (the
// real check, with the tool_denied report), one that runs commands runs them under the
// launcher, confined (here one that cannot confine, so refuses to start; the Landlock suite,
// sandbox_e2e_test.go, covers what the kernel refuses). A new writing tool that declares
// neither fails here.
func TestSandboxHoldsEveryBuiltinWriter(t *testing.T) {
	t.Parallel()
	work, outside := t.TempDir(), t.TempDir()
	s := &Plan{workDir: work, policy: sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{work}}}
	// A launcher with the policy and no launcher process: a confined start fails.
	env := tools.Env{WorkDir: work, Launcher: &launch.Launcher{Policy: s.policy}}
	writers := 0
	for _, tool := range everyBuiltin(env) {
		f := tool.Facts()
		if !f.WritesFiles {
			continue
		}
		writers++
		t.Run(tool.Name(), func(t *testing.T) {
			target := filepath.Join(outside, tool.Name()+".txt")
			var denials []policy.Denial
			guarded := s.Guard([]tools.Tool{tool}, func(d policy.Denial) { denials = append(denials, d) })[0]
			var args json.RawMessage
			switch f.Where {
			case tools.InProcess:
				if f.PathArg == "" {
					t.Fatalf("writes files in kimi-run's process but names no path argument")
				}
				args, _ = json.Marshal(map[string]any{f.PathArg: target, "content": "escaped"})
			case tools.InCommand:
				args, _ = json.Marshal(map[string]any{"command": "echo escaped > " + target})
			default:
				t.Fatalf("a built-in that writes files runs where the sandbox does not reach (%v)", f.Where)
			}
			res, err := guarded.Run(tools.WithCallID(context.Background(), "c1"), args)
			if err != nil || !res.IsError {
				t.Fatalf("write outside the roots: %+v, %v", res, err)
			}
			if _, err := os.Stat(target); err == nil {
				t.Fatalf("%s was written outside the writable roots", target)
			}
			if f.Where == tools.InProcess {
				if len(denials) != 1 || denials[0].Rule != "sandbox" || denials[0].Tool != tool.Name() || denials[0].CallID != "c1" ||
					!strings.HasPrefix(res.Output, "not run: the sandbox allows writes only below "+work) {
					t.Errorf("refusal = %q, denials %+v", res.Output, denials)
				}
			}
		})
	}
	if writers < 3 {
		t.Errorf("only %d built-ins write files; Shell, WriteFile and StrReplaceFile do", writers)
	}
}

// The checks follow the facts alone: a tool named like a built-in gets nothing for its name.
func TestSandboxChecksFollowFacts(t *testing.T) {
	t.Parallel()
	work, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "f")
	args, _ := json.Marshal(map[string]string{"path": target, "file": target})
	type in struct {
		Path string `json:"path"`
	}
	tests := []struct {
		name    string
		tool    string
		facts   tools.Facts
		mode    sandbox.Mode
		noNet   bool
		refused string // the start of the refusal, "" if the call runs
	}{
		{"writer, path outside", "Mine", tools.Facts{WritesFiles: true, PathArg: "path"}, sandbox.WorkspaceWrite, false, "not run: the sandbox allows writes only below"},
		{"writer, other path argument", "Mine", tools.Facts{WritesFiles: true, PathArg: "file"}, sandbox.ReadOnly, false, "not run: the sandbox allows no writes here"},
		{"writer naming no path", "Mine", tools.Facts{WritesFiles: true}, sandbox.WorkspaceWrite, false, "not run: the sandbox (workspace-write) cannot tell where this tool writes"},
		{"writer, files not restricted", "Mine", tools.Facts{WritesFiles: true, PathArg: "path"}, sandbox.Off, true, ""},
		{"named WriteFile, writes nothing", "WriteFile", tools.Facts{ReadOnly: true}, sandbox.WorkspaceWrite, true, ""},
		{"network cut", "Mine", tools.Facts{Network: true, ReadOnly: true}, sandbox.Off, true, "not run: the network is cut for this run (--sandbox-network off)"},
		{"network on", "Mine", tools.Facts{Network: true}, sandbox.WorkspaceWrite, false, ""},
		{"named FetchURL, no network", "FetchURL", tools.Facts{ReadOnly: true}, sandbox.Off, true, ""},
		{"MCP server reaching out", "Mine", tools.Facts{Network: true, Where: tools.InServer}, sandbox.Off, true, ""},
		{"MCP server", "Mine", tools.Facts{WritesFiles: true, Where: tools.InServer}, sandbox.ReadOnly, true, ""},
		{"commands", "Mine", tools.Facts{WritesFiles: true, Network: true, Where: tools.InCommand}, sandbox.ReadOnly, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Plan{workDir: work, policy: sandbox.Policy{Mode: tt.mode, Writable: []string{work}, NoNetwork: tt.noNet}}
			ran := false
			tool := tools.New(tt.tool, "test", tt.facts, func(context.Context, in) (tools.Result, error) {
				ran = true
				return tools.Text("ran"), nil
			})
			denied := 0
			res, err := s.Guard([]tools.Tool{tool}, func(policy.Denial) { denied++ })[0].Run(context.Background(), args)
			if err != nil {
				t.Fatal(err)
			}
			if tt.refused == "" {
				if !ran || res.IsError || denied != 0 {
					t.Errorf("not run: %+v, %d denials", res, denied)
				}
				return
			}
			if ran || !res.IsError || denied != 1 || !strings.HasPrefix(res.Output, tt.refused) {
				t.Errorf("ran %v, result %+v, %d denials; want refused with %q", ran, res, denied, tt.refused)
			}
		})
	}
}

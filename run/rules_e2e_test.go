package run_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/tools"
)

func TestDeniedShellCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep.txt")
	os.WriteFile(keep, []byte("precious\n"), 0o644)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("call_rm", "Shell", `{"command":"ls && rm -f keep.txt"}`), scripted.CallID("call_ls", "Shell", `{"command":"ls"}`)),
		scripted.Text("I could not delete it."),
	)
	r := kimi(t, srv, invocation{dir: dir, args: []string{"--output-format", "stream-json", "--disallowed-tools", "Shell(rm *)", "-p", "clean up"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("the denied command ran: %v", err)
	}
	evs := events(t, r.stdout)
	denied := testkit.OfType(evs, "tool_denied")
	if len(denied) != 1 || denied[0]["id"] != "call_rm" || denied[0]["name"] != "Shell" || denied[0]["rule"] != "Shell(rm *)" {
		t.Fatalf("tool_denied events = %v", denied)
	}
	for _, e := range testkit.OfType(evs, "tool_result") {
		if wantErr := e["id"] == "call_rm"; e["is_error"] != wantErr {
			t.Errorf("tool_result = %v", e)
		}
	}
	// The model read why, in the tool result.
	var toolMsg string
	for _, m := range srv.Requests()[1].Messages() {
		if m["role"] == "tool" && m["tool_call_id"] == "call_rm" {
			toolMsg, _ = m["content"].(string)
		}
	}
	if !strings.Contains(toolMsg, "Shell(rm *)") || !strings.HasPrefix(toolMsg, "ERROR: not run") {
		t.Errorf("the model was told %q", toolMsg)
	}
	if res := lastResult(t, r); res["tool_denials"] != 1.0 {
		t.Errorf("result = %v", res)
	}
}

func TestDeniedCommandInTextMode(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"rm -rf /"}`)), scripted.Text("Refused."))
	r := kimi(t, srv, invocation{args: []string{"--disallowed-tools", "Shell(rm *)", "-p", "x"}})
	if r.code != 0 || r.stdout != "Refused.\n" || !strings.Contains(r.stderr, "Shell refused: Shell(rm *)") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestToolsOffered(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"--tools", []string{"--tools", "ReadFile,Glob"}, []string{"ReadFile", "Glob"}},
		{"--tools, Agent", []string{"--tools", "Shell Agent"}, []string{"Agent", "Shell"}},
		{"--tools, Task for Agent", []string{"--tools", "Shell,Task"}, []string{"Agent", "Shell"}},
		{"--allowed-tools", []string{"--allowed-tools", "Shell(git *),Grep"}, []string{"Shell", "Grep"}},
		{"--disallowed-tools names", []string{"--disallowed-tools", "Shell", "--disallowed-tools", "FetchURL,Task"},
			defaultToolsBut("Shell", "FetchURL", "Agent")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := scripted.New(t, scripted.Text("ok"))
			r := kimi(t, srv, invocation{args: append([]string{"--output-format", "stream-json", "-p", "x"}, tt.args...)})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if got := offeredTools(t, srv, 0); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("offered %q, want %q", got, tt.want)
			}
			var init []string
			for _, n := range events(t, r.stdout)[0]["tools"].([]any) {
				init = append(init, n.(string))
			}
			if !reflect.DeepEqual(init, tt.want) {
				t.Errorf("init tools = %q, want %q", init, tt.want)
			}
		})
	}
}

// defaultToolsBut is what the default agent offers (every built-in that is not opt-in, in
// table order) less the names given, so a new built-in needs no edit here.
// defaultToolsBut is the default agent's tools as a plain run offers them (it has subagents;
// the model reads no media and no search service is configured), less names.
func defaultToolsBut(names ...string) []string {
	var out []string
	for _, t := range tools.Builtins(tools.Env{Subagent: anySubagent{}, Plan: tools.NewPlanMode("/plan.md")}) {
		if !t.Facts().OptIn && !slices.Contains(names, t.Name()) {
			out = append(out, t.Name())
		}
	}
	return out
}

func TestAllowedToolsRefuseTheRest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo hello > a.txt"}`), scripted.Call("Shell", `{"command":"echo hi; touch b.txt"}`)),
		scripted.Text("Done."),
	)
	r := kimi(t, srv, invocation{dir: dir, args: []string{"--output-format", "stream-json", "--allowed-tools", "Shell(echo *)", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Errorf("a command with a part no rule allows ran")
	}
	denied := testkit.OfType(events(t, r.stdout), "tool_denied")
	if len(denied) != 1 || denied[0]["rule"] != nil {
		t.Errorf("tool_denied = %v, want one without a rule (none allowed it)", denied)
	}
}

func TestRulesApplyToSubagents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep.txt")
	os.WriteFile(keep, []byte("x"), 0o644)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("Agent", `{"description":"clean","prompt":"delete keep.txt","subagent_type":"coder"}`)),
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"rm keep.txt"}`)),
		scripted.Text("The rules refused it."),
		scripted.Text("The subagent could not delete it."),
	)
	r := kimi(t, srv, invocation{dir: dir, args: []string{"--output-format", "stream-json", "--disallowed-tools", "Shell(rm *),FetchURL", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("the subagent's denied command ran")
	}
	if got := offeredTools(t, srv, 1); slices.Contains(got, "FetchURL") || slices.Contains(got, "Agent") || !slices.Contains(got, "Shell") {
		t.Errorf("the subagent was offered %q", got)
	}
	denied := testkit.OfType(events(t, r.stdout), "tool_denied")
	if len(denied) != 1 {
		t.Errorf("tool_denied = %v", denied)
	}
}

func TestBadToolRules(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--tools", "Shel"},
		{"--disallowed-tools", "ReadFile(x)"},
		{"--allowed-tools", "Shell(ls"},
		{"--tools", "Shell(ls *)"},
	} {
		r := kimi(t, nil, invocation{args: append([]string{"-p", "x"}, args...)})
		if r.code != 2 || !strings.Contains(r.stderr, args[0]) && !strings.Contains(r.stderr, "unknown tool") {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// anySubagent stands for the run's subagents, for tools.Builtins.
type anySubagent struct{}

func (anySubagent) RunSubagent(context.Context, tools.SubagentCall) (tools.SubagentAnswer, error) {
	return tools.SubagentAnswer{}, nil
}

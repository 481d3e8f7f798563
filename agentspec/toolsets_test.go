package agentspec

import (
	"slices"
	"testing"

	"github.com/kimi-run/kimi-run/tools"
)

// The built-in agents take their tools from the built-in table and the tools' facts: a
// built-in the default agent does not offer fails here unless it declares itself opt-in.
// The tools kimi-run had when the lists were derived keep the agents they were in.
func TestBuiltinAgentsFollowTheTable(t *testing.T) {
	def, err := Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	okabe, err := Builtin("okabe")
	if err != nil {
		t.Fatal(err)
	}
	var offered, coder, readOnly []string
	for _, tool := range tools.AllBuiltins() {
		name, f := tool.Name(), tool.Facts()
		if !f.OptIn {
			offered = append(offered, name)
		}
		if !f.OptIn && !f.RootOnly && name != "SetTodoList" { // coder.yaml excludes the plan
			coder = append(coder, name)
		}
		if !f.OptIn && f.ReadOnly && !f.RootOnly { // a subagent never gets a root-only tool
			readOnly = append(readOnly, name)
		}
	}
	// okabe is the default agent and SendDMail, as Kimi CLI 1.49's okabe; Think, opt-in as in
	// Kimi's default agent (where its line is commented out), is in neither.
	okabeTools := append(slices.Clone(offered), "SendDMail")
	want := map[string][]string{"default": offered, "okabe": okabeTools, "coder": coder, "explore": readOnly, "plan": readOnly}
	got := map[string][]string{"default": def.ToolNames(), "okabe": okabe.ToolNames()}
	for _, sub := range def.Subagents {
		got[sub.Name] = sub.Spec.ToolNames()
	}
	for name, w := range want {
		if !slices.Equal(got[name], w) {
			t.Errorf("%s tools = %v, want %v", name, got[name], w)
		}
	}
	// What the facts of today's tools must keep saying.
	for _, n := range []string{"Shell", "ReadFile", "WriteFile", "StrReplaceFile", "Glob", "Grep", "FetchURL", "SetTodoList", "Agent", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode"} {
		if !slices.Contains(got["default"], n) {
			t.Errorf("the default agent lost %s", n)
		}
	}
	for _, n := range []string{"ReadFile", "Glob", "Grep", "FetchURL"} {
		if !slices.Contains(readOnly, n) {
			t.Errorf("%s is no longer read-only (explore and plan lose it)", n)
		}
	}
	for _, n := range []string{"Shell", "WriteFile", "StrReplaceFile", "SetTodoList", "Agent", "SendDMail"} {
		if slices.Contains(readOnly, n) || slices.Contains(got["coder"], "Agent") || slices.Contains(got["coder"], "SendDMail") {
			t.Errorf("%s reaches a subagent it was not in (read-only: %v, coder: %v)", n, readOnly, got["coder"])
		}
	}
}

// "@SET" entries are the built-in files' own: in a user's file they are names like any
// other, which no tool has (so the run leaves them out with a warning, as before). A
// user's subagent never gets the root's tools, whichever way the file names them.
func TestToolSetsAreBuiltinOnly(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "p.md", "Hi.")
	file := write(t, dir, "a.yaml", `version: 1
agent:
  name: mine
  system_prompt_path: p.md
  tools: ["@builtin", Think, Agent]
  subagents:
    helper:
      path: ./helper.yaml
      description: Helps.
`)
	write(t, dir, "helper.yaml", `version: 1
agent:
  system_prompt_path: p.md
  tools: [Think, Task, "kimi_cli.tools.dmail:SendDMail", "@builtin-read-only"]
`)
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.ToolNames(); !slices.Equal(got, []string{"@builtin", "Think", "Agent"}) {
		t.Errorf("root tools = %v", got)
	}
	if got := s.Subagents[0].Spec.ToolNames(); !slices.Equal(got, []string{"Think", "@builtin-read-only"}) {
		t.Errorf("subagent tools = %v", got)
	}
}

package tools

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
)

// The facts of every built-in hold together, so the checks that follow from them can work:
// the path argument is a string argument of the tool (required when the sandbox reads it
// to check a write), and a tool that writes in kimi-run's process names one.
func TestBuiltinFactsHoldTogether(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range AllBuiltins() {
		name, f := tool.Name(), tool.Facts()
		if seen[name] {
			t.Errorf("%s is in the built-in table twice", name)
		}
		seen[name] = true
		var schema struct {
			Properties map[string]struct {
				Type  string `json:"type"`
				AnyOf []struct {
					Type string `json:"type"`
				} `json:"anyOf"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(tool.Schema(), &schema); err != nil {
			t.Fatalf("%s: schema: %v", name, err)
		}
		p := schema.Properties[f.PathArg]
		if f.PathArg != "" && p.Type != "string" && (len(p.AnyOf) != 2 || p.AnyOf[0].Type != "string" || p.AnyOf[1].Type != "null") {
			t.Errorf("%s: path argument %q is not a string argument of its schema", name, f.PathArg)
		}
		if f.WritesFiles && f.Where == InProcess && (f.PathArg == "" || !slices.Contains(schema.Required, f.PathArg)) {
			t.Errorf("%s writes files in kimi-run's process but its required arguments %v hold no path argument (%q)", name, schema.Required, f.PathArg)
		}
		if f.Where == InServer {
			t.Errorf("%s: a built-in runs in kimi-run, not in an MCP server", name)
		}
		if f.ReadOnly && (f.WritesFiles || f.Destructive) {
			t.Errorf("%s is read-only but writes or destroys: %+v", name, f)
		}
	}
}

// A run offers the built-ins in table order, those that need a delegate (or a model that
// reads media) only with it. The tools of Kimi CLI 1.49's default agent come in its order
// (src/kimi_cli/agents/default/agent.yaml at 4a550eff); moving one changes every request.
func TestBuiltinsFollowTheTable(t *testing.T) {
	names := func(ts []Tool) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Name())
		}
		return out
	}
	all := names(AllBuiltins())
	known := []string{"Agent", "AskUserQuestion", "SetTodoList", "Shell", "TaskList", "TaskOutput", "TaskStop", "ReadFile", "ReadMediaFile",
		"Glob", "Grep", "WriteFile", "StrReplaceFile", "SearchWeb", "FetchURL", "ExitPlanMode", "EnterPlanMode", "Think", "SendDMail"}
	if !slices.Equal(slices.DeleteFunc(slices.Clone(all), func(n string) bool { return !slices.Contains(known, n) }), known) {
		t.Errorf("table = %v, which does not keep %v in order", all, known)
	}
	var unconditional []string
	for _, n := range all {
		if !slices.Contains([]string{"Agent", "SendDMail", "ReadMediaFile", "SearchWeb", "ExitPlanMode", "EnterPlanMode"}, n) {
			unconditional = append(unconditional, n)
		}
	}
	if got := names(Builtins(Env{})); !slices.Equal(got, unconditional) {
		t.Errorf("without delegates = %v, want %v", got, unconditional)
	}
	if got := names(Builtins(Env{Subagent: noSubagent{}, DMail: noDMail{}, Media: MediaSupport{Images: true}, Search: &Service{}, Plan: NewPlanMode("/plan.md")})); !slices.Equal(got, all) {
		t.Errorf("with every delegate = %v, want %v", got, all)
	}
}

type noSubagent struct{}

func (noSubagent) RunSubagent(context.Context, SubagentCall) (SubagentAnswer, error) {
	return SubagentAnswer{}, nil
}

type noDMail struct{}

func (noDMail) SendDMail(string, int) error { return nil }

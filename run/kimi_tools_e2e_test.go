package run_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// defaultTools are the tools the default agent offers, in order.
var defaultTools = []string{"Agent", "AskUserQuestion", "SetTodoList", "Shell", "TaskList", "TaskOutput", "TaskStop", "ReadFile",
	"Glob", "Grep", "WriteFile", "StrReplaceFile", "FetchURL", "ExitPlanMode", "EnterPlanMode"}

// TestKimiToolsInPrintMode holds README "Tool parameters." through the binary: the
// default agent offers Kimi CLI 1.49's default agent's tools in its order, without Think;
// Kimi-style calls run: a timeout as a string, SetTodoList without todos (shows the plan,
// changes nothing), AskUserQuestion (dismissed: nobody is there), the plan-mode tools as
// Kimi 1.49's print mode answers them (auto-approved: src/kimi_cli/tools/plan/enter.py and
// src/kimi_cli/tools/plan/__init__.py at 4a550eff, approval from soul/approval.py's afk),
// Grep's include_ignored, and Agent's run_in_background, model and resume.
func TestKimiToolsInPrintMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{".gitignore": "build/\n", "build/out.txt": "needle\n", "src.txt": "no match\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := scripted.New(t,
		scripted.ToolCalls(
			scripted.CallID("sh", "Shell", `{"command":"true","timeout":"60"}`),
			scripted.CallID("ask", "AskUserQuestion", `{"questions":[{"question":"Which one?","options":[{"label":"a"},{"label":"b"}]}]}`),
			scripted.CallID("todo0", "SetTodoList", `{}`),
			scripted.CallID("todo1", "SetTodoList", `{"todos":null}`),
			scripted.CallID("exit0", "ExitPlanMode", `{}`),
			scripted.CallID("g1", "Grep", `{"pattern":"needle","include_ignored":true}`),
			scripted.CallID("g2", "Grep", `{"pattern":"needle","include_ignored":"false"}`),
		),
		scripted.ToolCalls(scripted.CallID("enter", "EnterPlanMode", `{}`)),
		scripted.ToolCalls(scripted.CallID("exit1", "ExitPlanMode", `{"options":null}`)),
		scripted.ToolCalls(scripted.CallID("sub1", "Agent", `{"description":"remember","prompt":"Remember the word kiwi.","run_in_background":true,"model":"other-model"}`)),
		scripted.Text("I will remember kiwi."),
		scripted.ToolCalls(scripted.CallID("sub2", "Agent", `{"description":"recall","prompt":"Which word was it?","resume":"sub1"}`)),
		scripted.Text("kiwi"),
		scripted.Text("done"),
	)
	r := kimi(t, srv, invocation{dir: dir, args: []string{"-p", "go"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 8 {
		t.Fatalf("%d requests, want 8", len(reqs))
	}
	var offered []string
	for _, tool := range reqs[0].Body["tools"].([]any) {
		offered = append(offered, tool.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	if !slices.Equal(offered, defaultTools) {
		t.Errorf("offered %v\nwant    %v", offered, defaultTools)
	}
	first := toolResults(reqs[1])
	for id, want := range map[string]string{
		"sh":    "exit code 0",
		"ask":   `"answers": {}`,
		"todo0": "The todo list is empty; nothing was changed.",
		"todo1": "The todo list is empty; nothing was changed.",
		"exit0": "plan mode is off",
		"g1":    "build/out.txt",
	} {
		if !strings.Contains(first[id], want) {
			t.Errorf("%s: result %q, want it to hold %q", id, first[id], want)
		}
	}
	if strings.Contains(first["g2"], "build/out.txt") {
		t.Errorf("Grep without include_ignored searched an ignored directory: %q", first["g2"])
	}
	if got := toolResults(reqs[2])["enter"]; !strings.Contains(got, "Plan mode is on") || !strings.Contains(got, "plan.md") {
		t.Errorf("EnterPlanMode: %q", got)
	}
	if got := toolResults(reqs[3])["exit1"]; !strings.Contains(got, "holds no plan") {
		t.Errorf("ExitPlanMode without a plan: %q", got)
	}
	sub1 := toolResults(reqs[5])["sub1"]
	for _, want := range []string{"ran in the foreground", "agent_id: sub1", "I will remember kiwi."} {
		if !strings.Contains(sub1, want) {
			t.Errorf("Agent result %q lacks %q", sub1, want)
		}
	}
	// The model an Agent call names is asked for by its subagent's calls, resumed ones too,
	// and by none of the parent's.
	for i, want := range []string{"test-model", "test-model", "test-model", "test-model", "other-model", "test-model", "other-model", "test-model"} {
		if got := reqs[i].Body["model"]; got != want {
			t.Errorf("request %d asked for model %v, want %s", i, got, want)
		}
	}
	var resumed []string
	for _, m := range reqs[6].Messages() {
		if c, ok := m["content"].(string); ok {
			resumed = append(resumed, c)
		}
	}
	all := strings.Join(resumed, "\n")
	for _, want := range []string{"Remember the word kiwi.", "I will remember kiwi.", "Which word was it?"} {
		if !strings.Contains(all, want) {
			t.Errorf("the resumed subagent's request lacks %q:\n%s", want, all)
		}
	}
	if got := toolResults(reqs[7])["sub2"]; !strings.Contains(got, "kiwi") || !strings.Contains(got, "agent_id: sub1") {
		t.Errorf("resumed Agent result: %q", got)
	}
}

// TestAgentModelUnderACostBudget: under --max-cost-usd a subagent stays on the run's model
// (another model's prices are unknown), and the Agent result says the model was not used.
func TestAgentModelUnderACostBudget(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("sub", "Agent", `{"description":"look","prompt":"Look around.","model":"other-model"}`)),
		scripted.Text("nothing here"),
		scripted.Text("done"),
	)
	r := kimi(t, srv, invocation{args: []string{"--max-cost-usd", "5", "--price-input", "1", "--price-output", "2", "-p", "go"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[1].Body["model"] != "test-model" {
		t.Fatalf("%d requests; the subagent's asked for %v", len(reqs), reqs[1].Body["model"])
	}
	if got := toolResults(reqs[2])["sub"]; !strings.Contains(got, `model: "other-model" was not used (--max-cost-usd needs the prices`) {
		t.Errorf("Agent result %q", got)
	}
}

// TestPlanModeInPrintMode: EnterPlanMode and ExitPlanMode answer as Kimi CLI 1.49's print
// mode does, where nobody is there to approve (src/kimi_cli/tools/plan/enter.py and
// src/kimi_cli/tools/plan/__init__.py at 4a550eff, whose approval is automatic when
// soul/approval.py's afk holds, as print mode sets it): entering is approved at once and
// names the plan file; entering twice is an error; leaving without a plan is an error;
// leaving with one approves it and hands its text back; leaving again is an error.
func TestPlanModeInPrintMode(t *testing.T) {
	t.Parallel()
	sessions := t.TempDir()
	write := fmt.Sprintf(`{"command":"d=$(find %s -type d -name plan-run) && printf '1. add the flag\\n2. test it\\n' > \"$d/plan.md\""}`, sessions)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("enter", "EnterPlanMode", `{}`)),
		scripted.ToolCalls(scripted.CallID("again", "EnterPlanMode", `{}`), scripted.CallID("early", "ExitPlanMode", `{}`)),
		scripted.ToolCalls(scripted.CallID("write", "Shell", write)),
		scripted.ToolCalls(scripted.CallID("exit", "ExitPlanMode", `{"options":[{"label":"flag"},{"label":"env"}]}`)),
		scripted.ToolCalls(scripted.CallID("twice", "ExitPlanMode", `{}`)),
		scripted.Text("planned"),
	)
	r := kimi(t, srv, invocation{args: []string{"--session-dir", sessions, "--session", "plan-run", "-p", "plan it"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests", len(reqs))
	}
	results := map[string]string{}
	for _, req := range reqs {
		for id, content := range toolResults(req) {
			results[id] = content
		}
	}
	for id, want := range map[string]string{
		"enter": "Plan mode is on (approved automatically",
		"again": "ERROR: plan mode is already on",
		"early": "holds no plan",
		"write": "exit code 0",
		"exit":  "The approved plan:\n1. add the flag\n2. test it",
		"twice": "ERROR: plan mode is off",
	} {
		if !strings.Contains(results[id], want) {
			t.Errorf("%s: %q, want it to hold %q", id, results[id], want)
		}
	}
	if !strings.Contains(results["enter"], filepath.Join("plan-run", "plan.md")) {
		t.Errorf("EnterPlanMode names no plan file beside the session: %q", results["enter"])
	}
}

// TestAgentTimeoutStopsTheSubagent: an Agent call's timeout (Kimi's least, 30 s) that runs
// out while its subagent waits on a model that never answers stops the subagent, and the
// result the model reads says the timeout stopped it; the run goes on.
func TestAgentTimeoutStopsTheSubagent(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("slow", "Agent", `{"description":"slow task","prompt":"Take your time.","timeout":30}`)),
		scripted.Reply(scripted.Say("working on it"), scripted.Hang()),
		scripted.Text("the subagent ran out of time"),
	)
	r := kimi(t, srv, invocation{args: []string{"--stream-idle-timeout", "10m", "-p", "go"}})
	if r.code != 0 || r.stdout != "the subagent ran out of time\n" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := toolResults(reqs[2])["slow"]; !strings.Contains(got, `task "slow task" was stopped: its timeout of 30s ran out`) {
		t.Errorf("Agent result %q", got)
	}
}

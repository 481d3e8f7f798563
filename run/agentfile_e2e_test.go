package run_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/agentspec"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/tools"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// offeredTools are the tool names of request i.
func offeredTools(t *testing.T, srv *scripted.Server, i int) []string {
	t.Helper()
	var names []string
	tools, _ := srv.Requests()[i].Body["tools"].([]any)
	for _, tl := range tools {
		names = append(names, tl.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	return names
}

// An agent file that extends default with its own prompt, arguments and exclude_tools
// changes what is sent: the system prompt and the tool list.
func TestAgentFileChangesPromptAndTools(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	agents := t.TempDir()
	writeFiles(t, agents, map[string]string{
		"ci.yaml": `version: 1
agent:
  extend: default
  name: ci-reviewer
  system_prompt_path: ./prompts/review.md
  system_prompt_args:
    TEAM: payments
  exclude_tools:
    - kimi_cli.tools.shell:Shell
    - kimi_cli.tools.multiagent:Task
    - kimi_cli.tools.ask_user:AskUserQuestion
`,
		"prompts/review.md": `You review changes for the ${TEAM} team.
{% include "rules.md" %}
Work dir: ${KIMI_WORK_DIR}
{% if KIMI_OS == "Windows" %}
Windows!
{% endif %}
Done.
`,
		"prompts/rules.md": "Never approve without tests.\n",
	})
	srv := scripted.New(t, scripted.Text("Looks good."))
	r := kimi(t, srv, invocation{dir: work, args: []string{"--agent-file", filepath.Join(agents, "ci.yaml"), "--output-format", "stream-json", "-p", "review"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	sys := srv.Requests()[0].Messages()[0]
	want := "You review changes for the payments team.\nNever approve without tests.\nWork dir: " + work + "\nDone."
	if sys["role"] != "system" || sys["content"] != want {
		t.Errorf("system prompt = %q\nwant %q", sys["content"], want)
	}
	// The default agent's tools, in the table's order, less those the file excludes and
	// those this run does not offer (no image_in, no search service).
	def, err := agentspec.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	var wantTools []string
	for _, tool := range tools.Builtins(tools.Env{Plan: tools.NewPlanMode("/plan.md")}) {
		if n := tool.Name(); slices.Contains(def.ToolNames(), n) && !slices.Contains([]string{"Shell", "Agent", "AskUserQuestion"}, n) {
			wantTools = append(wantTools, n)
		}
	}
	if got := offeredTools(t, srv, 0); !slices.Equal(got, wantTools) || len(wantTools) < 8 {
		t.Errorf("tools sent = %v, want %v", got, wantTools)
	}
	evs := events(t, r.stdout)
	if init := evs[0]; strings.Contains(strings.Join(toStrings(init["tools"]), " "), "Shell") {
		t.Errorf("init lists Shell: %v", init["tools"])
	}
	ws := testkit.OfType(evs, "warning")
	if len(ws) != 0 {
		t.Errorf("warnings = %v", ws)
	}
}

func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func TestAgentFileSubagentsAndMissingTools(t *testing.T) {
	t.Parallel()
	agents := t.TempDir()
	writeFiles(t, agents, map[string]string{
		"main.yaml": `version: 1
agent:
  extend: default
  tools: ["kimi_cli.tools.agent:Agent", "kimi_cli.tools.file:ReadFile", "kimi_cli.tools.web:SearchWeb", "kimi_cli.tools.file:Ls"]
  subagents:
    reviewer:
      path: ./reviewer.yaml
      description: Reviews one file and reports problems.
`,
		"reviewer.yaml": `version: 1
agent:
  extend: default
  system_prompt_args:
    ROLE_ADDITIONAL: You are the reviewer subagent.
  tools: [ReadFile, Grep, Shell]
`,
	})
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("a1", "Agent", `{"description":"review","prompt":"Review main.go","subagent_type":"reviewer"}`)),
		scripted.Text("No problems."),
		scripted.Text("The reviewer found no problems."),
	)
	r := kimi(t, srv, invocation{args: []string{"--agent-file", filepath.Join(agents, "main.yaml"), "--output-format", "stream-json", "-p", "review"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := strings.Join(offeredTools(t, srv, 0), " "); got != "Agent ReadFile" {
		t.Errorf("root tools = %s", got)
	}
	var agentTool map[string]any
	for _, tl := range srv.Requests()[0].Body["tools"].([]any) {
		if f := tl.(map[string]any)["function"].(map[string]any); f["name"] == "Agent" {
			agentTool = f
		}
	}
	if d, _ := agentTool["description"].(string); !strings.Contains(d, "- reviewer: Reviews one file and reports problems.") || strings.Contains(d, "coder") {
		t.Errorf("Agent description = %q", d)
	}
	if got := strings.Join(offeredTools(t, srv, 1), " "); got != "Shell ReadFile Grep" {
		t.Errorf("subagent tools = %s", got)
	}
	if sys := srv.Requests()[1].Messages()[0]["content"].(string); !strings.Contains(sys, "You are the reviewer subagent.") {
		t.Errorf("subagent prompt:\n%s", sys)
	}
	ws := testkit.OfType(events(t, r.stdout), "warning")
	// Ls is not a tool of kimi-run's; SearchWeb is, offered only with a search service: left
	// out quietly, as Kimi CLI skips it.
	if len(ws) != 1 || !strings.HasSuffix(ws[0]["message"].(string), "left out: Ls") {
		t.Errorf("warnings = %v", ws)
	}
}

func TestBuiltinAgents(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("ok"))
	r := kimi(t, srv, invocation{args: []string{"--agent", "okabe", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if tools := offeredTools(t, srv, 0); !slices.Contains(tools, "SendDMail") || !slices.Contains(tools, "Agent") {
		t.Errorf("okabe tools = %v", tools)
	}
	markers := 0
	for _, m := range srv.Requests()[0].Messages() {
		if c, _ := m["content"].(string); strings.Contains(c, "<system>CHECKPOINT") {
			markers++
		}
	}
	if markers == 0 {
		t.Errorf("okabe shows no checkpoint markers: %v", srv.Requests()[0].Messages())
	}
	srv = scripted.New(t, scripted.Text("ok"))
	if r := kimi(t, srv, invocation{args: []string{"--agent", "default", "-p", "x"}}); r.code != 0 || slices.Contains(offeredTools(t, srv, 0), "SendDMail") {
		t.Errorf("--agent default: exit %d, tools %v", r.code, offeredTools(t, srv, 0))
	}
}

func TestAgentFlagsUsageErrors(t *testing.T) {
	t.Parallel()
	agents := t.TempDir()
	writeFiles(t, agents, map[string]string{
		"a.yaml":  "version: 1\nagent:\n  extend: default\n  system_prompt_path: p.md\n",
		"p.md":    "Hello ${WHO}, in ${KIMI_WORK_DIR}.",
		"v2.yaml": "version: 2\nagent:\n  extend: default\n",
	})
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--agent", "okabe", "--agent-file", filepath.Join(agents, "a.yaml")}, "cannot be combined"},
		{[]string{"--agent", "mayuri"}, "built-in agents are default, okabe"},
		{[]string{"--agent-file", filepath.Join(agents, "a.yaml")}, "undefined variable WHO"},
		{[]string{"--agent-file", filepath.Join(agents, "v2.yaml")}, "version 2 is not supported"},
		{[]string{"--agent-file", filepath.Join(agents, "gone.yaml")}, "gone.yaml"},
		{[]string{"--add-dir", filepath.Join(agents, "p.md")}, "--add-dir"},
		{[]string{"--skills-dir", filepath.Join(agents, "nope")}, "--skills-dir"},
	}
	for _, tt := range tests {
		srv := scripted.New(t)
		r := kimi(t, srv, invocation{args: append(tt.args, "--output-format", "stream-json", "-p", "x")})
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.want)
			continue
		}
		if res := lastResult(t, r); res["error"].(map[string]any)["kind"] != "usage" {
			t.Errorf("%v: result %v", tt.args, res)
		}
	}
}

// --add-dir: the directory is listed in the system prompt and the agent may use it with
// relative paths.
func TestAddDir(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	work, lib := filepath.Join(base, "app"), filepath.Join(base, "shared-lib")
	writeFiles(t, base, map[string]string{"app/main.go": "package main\n", "shared-lib/util.go": "package lib\n"})
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("ReadFile", `{"path":"../shared-lib/util.go"}`)),
		scripted.Text("read it"),
	)
	r := kimi(t, srv, invocation{dir: work, args: []string{"--add-dir", lib, "--add-dir", filepath.Join(work, "."), "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sys := srv.Requests()[0].Messages()[0]["content"].(string)
	if !strings.Contains(sys, "# Additional directories") || !strings.Contains(sys, "### `"+lib+"`") || !strings.Contains(sys, "util.go") {
		t.Errorf("system prompt lacks the added dir:\n%s", sys)
	}
	if strings.Contains(sys, "### `"+work+"`") {
		t.Errorf("the work dir itself is listed as an added dir")
	}
	if out := lastToolOutput(t, srv, 1); !strings.Contains(out, "package lib") {
		t.Errorf("ReadFile in the added dir = %q", out)
	}
}

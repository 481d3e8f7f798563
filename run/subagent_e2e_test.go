package run_test

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

func TestAgentRunsASubagent(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("call_task", "Agent", `{"description":"count files","prompt":"Count the .txt files in the work dir and answer with the number.","subagent_type":"coder"}`)),
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"ls *.txt | wc -l"}`)),
		scripted.Text("There are 0 text files."),
		scripted.Text("The subagent counted 0 text files."),
	)
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "how many text files?"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	// The subagent starts from a fresh context and cannot delegate again.
	sub := reqs[1].Messages()
	if len(sub) != 2 || !strings.HasPrefix(sub[1]["content"].(string), "Count the .txt files") {
		t.Errorf("subagent context = %v", sub)
	}
	if sys := sub[0]["content"].(string); !strings.Contains(sys, "You are a subagent") {
		t.Errorf("the coder subagent has not its own system prompt:\n%s", sys)
	}
	for _, tool := range reqs[1].Body["tools"].([]any) {
		if name := tool.(map[string]any)["function"].(map[string]any)["name"]; name == "Agent" || name == "SetTodoList" {
			t.Errorf("the coder subagent was offered %s", name)
		}
	}
	parent := reqs[3].Messages()
	if c := parent[len(parent)-1]["content"].(string); !strings.Contains(c, "There are 0 text files.") {
		t.Errorf("Agent result sent to the parent = %q", c)
	}
	nested := 0
	for _, e := range events(t, r.stdout) {
		if e["parent_tool_call_id"] == "call_task" {
			nested++
			if e["type"] == "result" {
				t.Errorf("a subagent emitted a result event")
			}
		}
	}
	if nested < 4 {
		t.Errorf("only %d events are marked with the Agent call id", nested)
	}
	res := lastResult(t, r)
	if res["tool_calls"] != 2.0 || res["steps"] != 4.0 {
		t.Errorf("result counts subagent work wrong: steps=%v tool_calls=%v", res["steps"], res["tool_calls"])
	}
}

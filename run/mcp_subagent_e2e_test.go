package run_test

import (
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// A subagent kind gets the MCP tools by what its own tools and the MCP tools say of
// themselves: coder (its tools write files) every one, explore (read-only) only those whose
// server marks them readOnlyHint (internal/mcptest: echo is, add and fail are not).
func TestSubagentsGetMCPToolsByFacts(t *testing.T) {
	t.Parallel()
	cfg := mcpConfigFile(t, map[string]any{"gh": stdioServer(t, "gh")})
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("Agent", `{"description":"look","prompt":"Look around.","subagent_type":"explore"}`)),
		scripted.Text("looked"),
		scripted.ToolCalls(scripted.Call("Agent", `{"description":"change","prompt":"Change it.","subagent_type":"coder"}`)),
		scripted.Text("changed"),
		scripted.Text("done"),
	)
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--mcp-config-file", cfg, "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, c := range []struct {
		who    string
		req    int
		has    []string
		hasNot []string
	}{
		{"root", 0, []string{"echo", "add", "fail", "Shell", "Agent"}, nil},
		{"explore", 1, []string{"echo", "ReadFile"}, []string{"add", "fail", "Shell", "WriteFile", "Agent"}},
		{"coder", 3, []string{"echo", "add", "fail", "Shell", "WriteFile"}, []string{"Agent", "SetTodoList"}},
	} {
		tools := offered(reqs[c.req])
		for _, n := range c.has {
			if tools[n] == nil {
				t.Errorf("%s is not offered %s: %v", c.who, n, keys(tools))
			}
		}
		for _, n := range c.hasNot {
			if tools[n] != nil {
				t.Errorf("%s is offered %s: %v", c.who, n, keys(tools))
			}
		}
	}
}

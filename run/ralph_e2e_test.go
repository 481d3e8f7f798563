package run_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// userPrompts returns the user messages of request i.
func userPrompts(srv *scripted.Server, i int) []string {
	var out []string
	for _, m := range srv.Requests()[i].Messages() {
		if m["role"] == "user" {
			c, _ := m["content"].(string)
			out = append(out, c)
		}
	}
	return out
}

func TestRalph(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		replies    []string
		args       []string
		code       int
		reason     string
		turns      int
		iterations float64
		final      string
	}{
		{name: "stop on the third turn", replies: []string{"Fixed one. <choice>CONTINUE</choice>", "Fixed two. <choice>CONTINUE</choice>", "All green. <choice>STOP</choice>"},
			args: []string{"--ralph", "10"}, code: 0, reason: "stop", turns: 3, iterations: 3, final: "All green."},
		{name: "never stops", replies: []string{"a <choice>CONTINUE</choice>", "b <choice>CONTINUE</choice>", "c <choice>CONTINUE</choice>"},
			args: []string{"--ralph", "2"}, code: 4, reason: "max_iterations", turns: 3, iterations: 3},
		{name: "missing choice is asked again", replies: []string{"started", "done, I think", "Done. <choice>STOP</choice>"},
			args: []string{"--ralph", "5"}, code: 0, reason: "stop", turns: 3, final: "Done."},
		{name: "unlimited", replies: []string{"x", "<choice>CONTINUE</choice>", "<choice>CONTINUE</choice>", "<choice>CONTINUE</choice>", "ok <choice>STOP</choice>"},
			args: []string{"--ralph", "-1"}, code: 0, reason: "stop", turns: 5, iterations: 5, final: "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var script []scripted.Response
			for _, r := range tt.replies {
				script = append(script, scripted.Text(r))
			}
			srv := scripted.New(t, script...)
			args := append([]string{"--output-format", "stream-json", "-p", "make the tests pass"}, tt.args...)
			r := kimi(t, srv, invocation{args: args})
			if r.code != tt.code {
				t.Fatalf("exit = %d, want %d\n%s\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			if n := len(srv.Requests()); n != tt.turns {
				t.Errorf("%d model calls, want %d", n, tt.turns)
			}
			res := lastResult(t, r)
			if res["terminal_reason"] != tt.reason {
				t.Errorf("terminal_reason = %v, want %s", res["terminal_reason"], tt.reason)
			}
			if tt.iterations != 0 && res["iterations"] != tt.iterations {
				t.Errorf("iterations = %v, want %v", res["iterations"], tt.iterations)
			}
			if tt.final != "" && res["final_text"] != tt.final {
				t.Errorf("final_text = %q, want %q", res["final_text"], tt.final)
			}
			// Same session: the last request carries every earlier turn, and from the second
			// turn on the prompt explains the loop.
			last := userPrompts(srv, len(srv.Requests())-1)
			if len(last) != tt.turns || last[0] != "make the tests pass" {
				t.Errorf("last request's user messages = %q", last)
			}
			if !strings.Contains(last[1], "CONTINUE") || !strings.Contains(last[1], "STOP") {
				t.Errorf("decision prompt does not offer the choices: %q", last[1])
			}
			if len(testkit.OfType(events(t, r.stdout), "iteration")) == 0 {
				t.Errorf("no iteration events")
			}
		})
	}
}

func TestRalphText(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("one"), scripted.Text("Done. <choice>STOP</choice>"))
	r := kimi(t, srv, invocation{args: []string{"-p", "task", "--ralph", "3"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stdout != "Done.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "iteration 1/4") {
		t.Errorf("stderr lacks the iteration counter:\n%s", r.stderr)
	}
}

func TestRalphFresh(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("WriteFile", `{"path":"progress.txt","content":"step 1\n"}`)),
		scripted.Text("wrote progress"),
		scripted.Text("<choice>CONTINUE</choice>"),
		scripted.Text("finished <choice>STOP</choice>"),
	)
	dir := t.TempDir()
	r := kimi(t, srv, invocation{dir: dir, args: []string{"--output-format", "stream-json", "-p", "do the next step", "--ralph", "5", "--ralph-fresh"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "progress.txt")); err != nil {
		t.Errorf("file written in the first iteration is gone: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	// Requests 3 and 4 start again from the system prompt plus their own prompt: nothing
	// of the first iteration's messages.
	for _, i := range []int{2, 3} {
		msgs := reqs[i].Messages()
		if len(msgs) != 2 || msgs[0]["role"] != "system" || msgs[1]["role"] != "user" {
			var roles []any
			for _, m := range msgs {
				roles = append(roles, m["role"])
			}
			t.Errorf("request %d roles = %v, want [system user]", i+1, roles)
		}
	}
}

func TestFlowFile(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.Text("Plan written."),
		scripted.Text("Two tests fail. <choice>no</choice>"),
		scripted.Text("Fixed the first one."),
		scripted.Text("All pass now. <choice>yes</choice>"),
	)
	flow, _ := filepath.Abs("../ralph/testdata/flows/review.mmd")
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--flow", flow, "-p", "fix the build"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stdout, r.stderr)
	}
	if len(srv.Requests()) != 4 {
		t.Fatalf("%d requests, want 4", len(srv.Requests()))
	}
	prompts := userPrompts(srv, 3)
	if !strings.Contains(prompts[0], "write a plan") || !strings.Contains(prompts[2], "Fix the first failing test") {
		t.Errorf("node prompts = %q", prompts)
	}
	res := lastResult(t, r)
	if res["last_choice"] != "yes" || res["iterations"] != 4.0 {
		t.Errorf("result = %v", res)
	}
	var nodes []any
	for _, e := range testkit.OfType(events(t, r.stdout), "iteration") {
		nodes = append(nodes, e["node"])
	}
	if fmt.Sprint(nodes) != "[plan check fix check done]" {
		t.Errorf("iteration events for nodes %v, want each node as it starts and the end", nodes)
	}
}

func TestBrokenFlowIsAUsageError(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t)
	flow, _ := filepath.Abs("../ralph/testdata/broken/duplicate.mmd")
	r := kimi(t, srv, invocation{args: []string{"--flow", flow, "-p", "x"}})
	if r.code != 2 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "duplicate.mmd:") {
		t.Errorf("stderr does not name the file and line:\n%s", r.stderr)
	}
}

func TestRalphWithoutAValidChoiceFails(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.Text("did the work"),
		scripted.Text("I think so"),
		scripted.Text("<choice>MAYBE</choice>"),
		scripted.Text("<choice>stop</choice>"),
		scripted.Text("still no choice"),
	)
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "task", "--ralph", "5"}})
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("%d model calls: the decision must be asked at most 3 more times", n)
	}
	res := lastResult(t, r)
	if e, _ := res["error"].(map[string]any); e == nil || !strings.Contains(e["message"].(string), "choice") {
		t.Errorf("result error = %v", res["error"])
	}
}

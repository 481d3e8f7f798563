package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestKimiD2ExampleRuns drives the binary through the D2 flow of Kimi CLI's
// tests/core/test_agent_flow.py (test_parse_d2_flowchart_typical_example), whose stray
// nodes (a.foo.bar, not_used) lead nowhere but are never reached, and a `|md # comment`
// opener (markdown_block_with_comment) whose comment must not reach the model.
func TestKimiD2ExampleRuns(t *testing.T) {
	t.Parallel()
	flow := filepath.Join(t.TempDir(), "kimi.d2")
	src := strings.Join([]string{
		`a: |md # appended each round`,
		`  append a random line to file test.txt`,
		`|`,
		"a.shape: rectangle",
		"a.foo.bar",
		`b: "does test.txt contain more than 3 lines?" {`,
		"  sub1 -> sub2",
		"}",
		"BEGIN -> a -> b",
		"b -> a: no",
		"not_used",
		"b -> END: yes",
	}, "\n")
	if err := os.WriteFile(flow, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t, scripted.Text("appended"), scripted.Text("Four lines. <choice>yes</choice>"))
	r := kimi(t, srv, invocation{args: []string{"--flow", flow}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	task := userPrompts(srv, 0)
	if len(task) == 0 || task[len(task)-1] != "append a random line to file test.txt" {
		t.Errorf("task prompt %q, want the block's text without the opener's comment", task)
	}
	decision := userPrompts(srv, 1)
	want := "does test.txt contain more than 3 lines?\n\nThe branches you may take:\n- no\n- yes\n\nGive the one you take inside <choice>...</choice>."
	if got := decision[len(decision)-1]; got != want {
		t.Errorf("decision prompt:\n%q\nwant Kimi CLI's layout in kimi-run's words:\n%q", got, want)
	}
}

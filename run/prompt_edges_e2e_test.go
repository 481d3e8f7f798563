package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestEmptyPromptIsNeverReplacedByStdin: `git diff | kimi-run -p "$PROMPT"` with PROMPT unset
// must not hand the diff to an auto-approved agent as its instruction.
func TestEmptyPromptIsNeverReplacedByStdin(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	blank := filepath.Join(dir, "blank.txt")
	os.WriteFile(empty, nil, 0o644)
	os.WriteFile(blank, []byte("  \n\t\n"), 0o644)
	for _, tt := range []struct {
		name string
		args []string
	}{
		{name: "empty -p", args: []string{"-p", ""}},
		{name: "blank -p", args: []string{"-p", "  "}},
		{name: "empty --prompt=", args: []string{"--prompt="}},
		{name: "empty prompt file", args: []string{"--prompt-file", empty}},
		{name: "blank prompt file", args: []string{"--prompt-file", blank}},
		{name: "empty prompt word", args: []string{""}},
	} {
		for _, format := range []string{"text", "stream-json"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				srv := scripted.New(t)
				args := append([]string{"--output-format", format}, tt.args...)
				r := kimi(t, srv, invocation{args: args, stdin: ptr("diff --git a/x b/x\n-rm -rf /\n")})
				if r.code != 2 {
					t.Fatalf("exit = %d, want 2\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
				}
				if !strings.Contains(r.stderr, "empty") {
					t.Errorf("stderr does not say the prompt is empty:\n%s", r.stderr)
				}
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("%d model calls; the piped text must never become the instruction", n)
				}
				if format == "stream-json" {
					res := lastResult(t, r)
					if e, _ := res["error"].(map[string]any); e == nil || e["kind"] != "usage" {
						t.Errorf("result = %v", res)
					}
				}
			})
		}
	}
}

// TestFlowRunsWithoutAPrompt: a flow's nodes are its prompts; a prompt given with it is the
// user's request and reaches the model with every node.
func TestFlowRunsWithoutAPrompt(t *testing.T) {
	flow := filepath.Join(t.TempDir(), "ship.mmd")
	os.WriteFile(flow, []byte("flowchart TD\n  b([BEGIN]) --> t[Run the tests]\n  t --> d{Did they pass?}\n  d -->|yes| e([END])\n  d -->|no| t\n"), 0o644)
	script := func() []scripted.Response {
		return []scripted.Response{scripted.Text("Tests pass."), scripted.Text("They do. <choice>yes</choice>")}
	}
	t.Run("no prompt", func(t *testing.T) {
		srv := scripted.New(t, script()...)
		r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--flow", flow}})
		if r.code != 0 {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if got := userPrompts(srv, 1); len(got) != 2 || got[0] != "Run the tests" || !strings.HasPrefix(got[1], "Did they pass?") {
			t.Errorf("user messages = %q", got)
		}
	})
	for _, tt := range []struct {
		name  string
		args  []string
		stdin *string
		want  string
	}{
		{name: "with -p", args: []string{"--flow", flow, "-p", "ship it"}, want: "ship it"},
		{name: "with stdin", args: []string{"--flow", flow}, stdin: ptr("ship it from stdin\n"), want: "ship it from stdin"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := scripted.New(t, script()...)
			r := kimi(t, srv, invocation{args: append([]string{"--output-format", "stream-json"}, tt.args...), stdin: tt.stdin})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			for i := range reqs {
				got := userPrompts(srv, i)
				last := got[len(got)-1]
				if !strings.Contains(last, tt.want) {
					t.Errorf("request %d: the node prompt lacks the user's request %q:\n%s", i+1, tt.want, last)
				}
			}
			if got := userPrompts(srv, 1); !strings.HasPrefix(got[0], "Run the tests") || !strings.HasPrefix(got[1], "Did they pass?") {
				t.Errorf("node prompts = %q", got)
			}
		})
	}
}

// TestFlowSkillTakesARequest: `/flow:NAME request` runs the flow with the request at every
// node, as --flow FILE -p request does.
func TestFlowSkillTakesARequest(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "ship", "---\nname: ship\ndescription: ship it\ntype: flow\n---\n```mermaid\nflowchart TD\n  b([BEGIN]) --> t[Run the tests]\n  t --> n[Write the notes]\n  n --> e([END])\n```\n")
	srv := scripted.New(t, scripted.Text("Tests pass."), scripted.Text("Notes written."))
	r := kimi(t, srv, invocation{dir: dir, args: []string{"--output-format", "stream-json", "-p", "/flow:ship for release v2"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stdout, r.stderr)
	}
	got := userPrompts(srv, 1)
	if len(got) != 2 || !strings.HasPrefix(got[0], "Run the tests") || !strings.HasPrefix(got[1], "Write the notes") {
		t.Fatalf("user messages = %q", got)
	}
	for _, p := range got {
		if !strings.Contains(p, "for release v2") {
			t.Errorf("node prompt lacks the request: %q", p)
		}
	}
}

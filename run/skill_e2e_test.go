package run_test

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

func TestSkillPrompt(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteSkill(t, dir, "release-notes", "---\nname: release-notes\ndescription: write release notes\n---\nList the merged changes since the last tag as bullet points.\n")
	srv := scripted.New(t, scripted.Text("- fixed the parser"))
	r := kimi(t, srv, invocation{dir: dir, args: []string{"-p", "/skill:release-notes for v2.1"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	msgs := srv.Requests()[0].Messages()
	got := msgs[len(msgs)-1]["content"].(string)
	if !strings.Contains(got, "List the merged changes") || !strings.Contains(got, "for v2.1") {
		t.Errorf("skill prompt = %q", got)
	}
}

func TestFlowSkill(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteSkill(t, dir, "ship", "---\nname: ship\ndescription: ship it\ntype: flow\n---\n```mermaid\nflowchart TD\n  b([BEGIN]) --> t[Run the tests]\n  t --> e([END])\n```\n")
	srv := scripted.New(t, scripted.Text("Tests pass."))
	r := kimi(t, srv, invocation{dir: dir, args: []string{"--output-format", "stream-json", "-p", "/flow:ship"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	msgs := srv.Requests()[0].Messages()
	if got := msgs[len(msgs)-1]["content"]; got != "Run the tests" {
		t.Errorf("node prompt = %q", got)
	}
	if res := lastResult(t, r); res["iterations"] != 1.0 || res["final_text"] != "Tests pass." {
		t.Errorf("result = %v", res)
	}
}

func TestUnknownSkillIsAUsageError(t *testing.T) {
	srv := scripted.New(t)
	r := kimi(t, srv, invocation{args: []string{"-p", "/skill:nope do it"}})
	if r.code != 2 || !strings.Contains(r.stderr, "nope") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

func TestTodoListIsReported(t *testing.T) {
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("SetTodoList", `{"todos":[{"title":"read the code","status":"done"},{"title":"fix the bug","status":"in_progress"}]}`)),
		scripted.Text("ok"),
		scripted.ToolCalls(scripted.Call("SetTodoList", `{"todos":[{"title":"write tests","status":"pending"}]}`)),
		scripted.Text("ok"),
	)
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "plan"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	todo := testkit.Last(events(t, r.stdout), "todo")
	if todo == nil {
		t.Fatal("no todo event")
	}
	items := todo["todos"].([]any)
	if len(items) != 2 || items[1].(map[string]any)["status"] != "in_progress" {
		t.Errorf("todo = %v", todo)
	}
	r = kimi(t, srv, invocation{args: []string{"-p", "plan again"}})
	if r.code != 0 || !strings.Contains(r.stderr, "write tests") {
		t.Errorf("text mode does not show the plan on stderr (exit %d):\n%s", r.code, r.stderr)
	}
}

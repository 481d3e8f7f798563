package run_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

func TestSkillPrompt(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	srv := scripted.New(t)
	r := kimi(t, srv, invocation{args: []string{"-p", "/skill:nope do it"}})
	if r.code != 2 || !strings.Contains(r.stderr, "nope") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

func TestTodoListIsReported(t *testing.T) {
	t.Parallel()
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

// Skills are found where Kimi CLI looks: the user's ~/.kimi/skills, ~/.claude/skills and
// ~/.config/agents/skills, and the project's .kimi/skills from the git root; the system
// prompt lists them, and /skill:NAME finds them there.
func TestSkillsFromKimiDirectories(t *testing.T) {
	t.Parallel()
	home, repo := t.TempDir(), t.TempDir()
	work := filepath.Join(repo, "service")
	writeFiles(t, home, map[string]string{
		".kimi/skills/changelog/SKILL.md":     "---\nname: changelog\ndescription: Write the changelog entry\n---\nAdd an entry to CHANGELOG.md for the change.\n",
		".claude/skills/triage.md":            "Sort the open issues by severity.\n",
		".config/agents/skills/lint/SKILL.md": "---\ndescription: user lint\n---\nRun the user's linter.\n",
	})
	writeFiles(t, repo, map[string]string{
		".git/HEAD":                  "ref: refs/heads/main\n",
		".kimi/skills/lint/SKILL.md": "---\ndescription: project lint\n---\nRun make lint.\n",
		"service/main.go":            "package main\n",
	})
	srv := scripted.New(t, scripted.Text("ok"), scripted.Text("ok"))
	env := map[string]string{"HOME": home}
	r := kimi(t, srv, invocation{dir: work, env: env, args: []string{"-p", "/skill:triage today"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	msgs := srv.Requests()[0].Messages()
	sys := msgs[0]["content"].(string)
	for _, want := range []string{
		"### Project\n- lint\n  - Path: " + filepath.Join(repo, ".kimi", "skills", "lint", "SKILL.md") + "\n  - Description: project lint",
		"### User\n- changelog", "- triage\n  - Path: " + filepath.Join(home, ".claude", "skills", "triage.md"),
	} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "user lint") {
		t.Errorf("the user's lint skill was listed beside the project's")
	}
	if got := msgs[len(msgs)-1]["content"].(string); !strings.Contains(got, "Sort the open issues") || !strings.Contains(got, "today") {
		t.Errorf("/skill:triage prompt = %q", got)
	}

	// --skills-dir replaces the discovered directories.
	own := t.TempDir()
	writeFiles(t, own, map[string]string{"only/SKILL.md": "---\nname: only\ndescription: the only skill\n---\nDo the one thing.\n"})
	r = kimi(t, srv, invocation{dir: work, env: env, args: []string{"--skills-dir", own, "-p", "/skill:only"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sys = srv.Requests()[1].Messages()[0]["content"].(string)
	if !strings.Contains(sys, "### Extra\n- only") || strings.Contains(sys, "changelog") || strings.Contains(sys, "project lint") {
		t.Errorf("with --skills-dir the prompt lists:\n%s", sys)
	}
}

package run_test

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestKimiSkillFilesReadAsYAML drives the binary over skill files a Kimi CLI user may have:
// a folded description (YAML `>`), front matter that never closes (kept, described by its
// first line), and front matter that is not YAML (left out with a warning). /skill:NAME
// sends the whole SKILL.md and the request under "User request:", as Kimi's
// KimiSoul._make_skill_runner does.
func TestKimiSkillFilesReadAsYAML(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	folded := "---\nname: review\ndescription: >\n  Review a diff\n  for bugs.\n---\nRead the diff and list the bugs.\n"
	testkit.WriteSkill(t, dir, "review", folded)
	testkit.WriteSkill(t, dir, "open", "---\nname: never-closed\nDo the open thing.\n")
	testkit.WriteSkill(t, dir, "garbled", "---\nname: \"unterminated\ndescription: oops\n---\nbody\n")
	srv := scripted.New(t, scripted.Text("no bugs"))
	r := kimi(t, srv, invocation{dir: dir, args: []string{"-p", "/skill:review the last commit"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	msgs := srv.Requests()[0].Messages()
	if got, want := msgs[len(msgs)-1]["content"], strings.TrimSpace(folded)+"\n\nUser request:\nthe last commit"; got != want {
		t.Errorf("skill prompt:\n%q\nwant:\n%q", got, want)
	}
	system, _ := msgs[0]["content"].(string)
	for _, want := range []string{"- review\n", "  - Description: Review a diff for bugs.", "- open\n", "  - Description: name: never-closed"} {
		if !strings.Contains(system, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if strings.Contains(system, "garbled") || strings.Contains(system, "unterminated") {
		t.Error("a skill whose front matter is not YAML is listed")
	}
	if !strings.Contains(r.stderr, "garbled") || !strings.Contains(r.stderr, "not valid YAML") {
		t.Errorf("no warning about the garbled skill:\n%s", r.stderr)
	}
}

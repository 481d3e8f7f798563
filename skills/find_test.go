package skills

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func put(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nBody of " + desc + ".\n"
}

// skillHomes builds a project (with .git) holding a work dir, and a home directory.
func skillHomes(t *testing.T) (project, work, home string) {
	base := t.TempDir()
	project, home = filepath.Join(base, "repo"), filepath.Join(base, "home")
	work = filepath.Join(project, "svc")
	for _, d := range []string{filepath.Join(project, ".git"), work, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return project, work, home
}

func TestSkillRootsOrder(t *testing.T) {
	project, work, home := skillHomes(t)
	dirs := []string{
		filepath.Join(project, ".kimi", "skills"), filepath.Join(project, ".claude", "skills"),
		filepath.Join(project, ".agents", "skills"),
		filepath.Join(home, ".kimi", "skills"), filepath.Join(home, ".codex", "skills"),
		filepath.Join(home, ".config", "agents", "skills"), filepath.Join(home, ".agents", "skills"),
		filepath.Join(project, "more-skills"), filepath.Join(home, "mine"),
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	opt := Options{WorkDir: work, ProjectRoot: project, Home: home, ExtraDirs: []string{"more-skills", "~/mine", "/does/not/exist"}}
	var got []string
	for _, r := range Roots(opt) {
		got = append(got, string(r.Scope)+" "+r.Dir)
	}
	want := []string{
		"project " + dirs[0], "project " + dirs[1], "project " + dirs[2],
		"user " + dirs[3], "user " + dirs[4], "user " + dirs[5], // ~/.agents/skills loses to ~/.config/agents/skills
		"extra " + dirs[7], "extra " + dirs[8],
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("roots:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	opt.FirstBrandOnly = true
	got = nil
	for _, r := range Roots(opt) {
		got = append(got, r.Dir)
	}
	if len(got) != 6 || got[0] != dirs[0] || got[1] != dirs[2] || got[2] != dirs[3] || got[3] != dirs[5] {
		t.Errorf("first brand only: %v", got)
	}

	opt.SkillsDirs = []string{dirs[8]}
	opt.FirstBrandOnly = false
	got = nil
	for _, r := range Roots(opt) {
		got = append(got, string(r.Scope)+" "+r.Dir)
	}
	// --skills-dir replaces project and user discovery; extra_skill_dirs still add.
	if !reflect.DeepEqual(got, []string{"extra " + dirs[8], "extra " + dirs[7]}) {
		t.Errorf("with --skills-dir: %v", got)
	}
}

func TestDiscoverSkills(t *testing.T) {
	project, work, home := skillHomes(t)
	put(t, filepath.Join(project, ".agents", "skills", "review", "SKILL.md"), skillMD("review", "project review"))
	put(t, filepath.Join(home, ".kimi", "skills", "review", "SKILL.md"), skillMD("Review", "user review"))
	put(t, filepath.Join(home, ".kimi", "skills", "deploy", "SKILL.md"), skillMD("deploy", "user deploy"))
	put(t, filepath.Join(home, ".claude", "skills", "deploy.md"), skillMD("deploy", "claude flat deploy"))
	put(t, filepath.Join(home, ".claude", "skills", "notes.md"), "# Release notes\n\nWrite them.\n")
	put(t, filepath.Join(home, ".claude", "skills", "SKILL.md"), "stray marker\n")
	put(t, filepath.Join(home, ".codex", "skills", "lint", "SKILL.md"), "---\nname: lint\ntype: flowchart\n---\nx\n")
	put(t, filepath.Join(home, ".codex", "skills", "lint.md"), skillMD("lint", "flat lint"))
	put(t, filepath.Join(project, "x", "SKILL.md"), skillMD("extra-one", "extra"))

	skills := Find(Options{WorkDir: work, ProjectRoot: project, Home: home, ExtraDirs: []string{"x/.."}})
	var got []string
	for _, s := range skills.List() {
		got = append(got, s.Name+"|"+string(s.Scope)+"|"+s.Description)
	}
	want := []string{
		"deploy|user|user deploy",       // ~/.kimi beats ~/.claude
		"extra-one|extra|extra",         // a folder of the extra dir
		"lint|user|flat lint",           // the broken folder skill leaves the flat one
		"notes|user|# Release notes",    // flat file named by its stem, described by its first line
		"review|project|project review", // the project beats the user, names compare without case
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("skills:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(skills.Warnings) != 1 || !strings.Contains(skills.Warnings[0], "flowchart") {
		t.Errorf("warnings = %v", skills.Warnings)
	}
	for _, name := range []string{"REVIEW", "notes"} {
		if s, err := skills.Lookup(name); err != nil || s == nil {
			t.Errorf("Lookup(%s) = %v, %v", name, s, err)
		}
	}
	r, _ := skills.Lookup("review")
	if r.File != filepath.Join(project, ".agents", "skills", "review", "SKILL.md") || r.Path != r.File {
		t.Errorf("a project skill above the work dir: file %s path %s", r.File, r.Path)
	}

	list := skills.PromptList()
	for _, want := range []string{"### Project\n- review\n  - Path: " + r.File + "\n  - Description: project review", "### User\n- deploy", "### Extra\n- extra-one"} {
		if !strings.Contains(list, want) {
			t.Errorf("prompt list lacks %q:\n%s", want, list)
		}
	}
	if strings.Index(list, "### Project") > strings.Index(list, "### User") || strings.Index(list, "### User") > strings.Index(list, "### Extra") {
		t.Errorf("scopes out of order:\n%s", list)
	}
	if (&Set{}).PromptList() != "" {
		t.Error("no skills should list nothing")
	}
}

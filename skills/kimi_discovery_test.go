package skills

import (
	"path/filepath"
	"testing"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestKimiSkillDiscovery follows the flat-file cases of Kimi CLI's tests/core/test_skill.py:
// a flat NAME.md is a skill named by its stem (or its front matter), a SKILL.md lying flat
// in the root is no skill, and a folder skill beats a flat one of the same name.
func TestKimiSkillDiscovery(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".agents", "skills")
	testkit.WriteFile(t, filepath.Join(dir, "basic.md"), "---\nname: basic\ndescription: Basic flat skill\n---\nbody\n") // test_discover_skills_flat_md_basic
	testkit.WriteFile(t, filepath.Join(dir, "stem.md"), "Just a body line.\n")                                           // test_discover_skills_flat_md_name_defaults_to_stem
	testkit.WriteFile(t, filepath.Join(dir, "file-name.md"), "---\nname: other-name\ndescription: named\n---\n")         // test_discover_flat_md_frontmatter_name_differs_from_filename
	testkit.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: marker\n---\n")                                     // test_discover_skills_flat_md_ignores_skill_md_marker_file
	testkit.WriteFile(t, filepath.Join(dir, "dup.md"), "---\nname: dup\ndescription: flat\n---\n")                       // test_discover_skills_flat_and_subdir_same_name_subdir_wins
	testkit.WriteSkill(t, root, "dup", "---\nname: dup\ndescription: folder\n---\n")
	want := map[string]string{"basic": "Basic flat skill", "stem": "Just a body line.", "other-name": "named", "dup": "folder"}
	got := map[string]string{}
	for _, s := range skillsAt(root).List() {
		got[s.Name] = s.Description
	}
	if len(got) != len(want) {
		t.Errorf("skills %v, want %v", got, want)
	}
	for name, desc := range want {
		if got[name] != desc {
			t.Errorf("skill %s: description %q, want %q", name, got[name], desc)
		}
	}
}

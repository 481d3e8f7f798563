package skills

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestKimiSkillFrontMatter reads SKILL.md files as Kimi CLI does: the front matter is YAML
// (utils/frontmatter.py), a skill whose front matter is not valid YAML is left out, one whose
// `---` never closes is kept with the whole file as its body, and a missing description
// comes from the first body line. Each case names the Kimi test it follows.
func TestKimiSkillFrontMatter(t *testing.T) {
	tests := []struct {
		kimiTest string
		dir      string
		text     string
		// listed false: the skill is left out (and a warning names it).
		listed            bool
		name, description string
		typ               Type
	}{
		{kimiTest: "test_frontmatter.py::test_read_frontmatter_parses_yaml", dir: "t",
			text:   "---\nname: test-skill\ndescription: A test skill\nextra: 123\n---\n\n# Body\n",
			listed: true, name: "test-skill", description: "A test skill", typ: TypeStandard},
		{kimiTest: "test_frontmatter.py::test_read_frontmatter_invalid_yaml", dir: "bad",
			text: "---\nname: \"unterminated\ndescription: oops\n---\n"},
		{kimiTest: "YAML folded scalar (issue 18 #4)", dir: "folded",
			text:   "---\nname: folded\ndescription: >\n  Reviews a diff\n  for bugs.\n---\nbody\n",
			listed: true, name: "folded", description: "Reviews a diff for bugs.", typ: TypeStandard},
		{kimiTest: "YAML folded scalar before another key keeps its line break, as PyYAML does", dir: "folded2",
			text:   "---\ndescription: >\n  a\n  b\nname: folded2\n---\nbody\n",
			listed: true, name: "folded2", description: "a b\n", typ: TypeStandard},
		{kimiTest: "YAML literal scalar and quotes", dir: "quoted",
			text:   "---\nname: 'quoted'\ndescription: \"Say \\\"hi\\\": then stop\"\n---\nbody\n",
			listed: true, name: "quoted", description: `Say "hi": then stop`, typ: TypeStandard},
		{kimiTest: "front matter that is a list, not a mapping", dir: "list",
			text: "---\n- a\n- b\n---\nbody\n"},
		{kimiTest: "a name that is not text", dir: "num",
			text: "---\nname: [a, b]\n---\nbody\n"},
		{kimiTest: "test_skill.py::test_discover_skills_parses_frontmatter_and_defaults", dir: "alpha",
			text:   "---\nname: alpha-skill\ndescription: Alpha description\n---\n",
			listed: true, name: "alpha-skill", description: "Alpha description", typ: TypeStandard},
		{kimiTest: "test_skill.py::test_discover_skills_parses_frontmatter_and_defaults (beta)", dir: "beta",
			text:   "# No frontmatter",
			listed: true, name: "beta", description: "# No frontmatter", typ: TypeStandard},
		{kimiTest: "test_skill.py::test_discover_skills_parses_flow_type", dir: "flowy",
			text:   "---\nname: flowy\ndescription: Flow skill\ntype: flow\n---\n```mermaid\nflowchart TD\nBEGIN([BEGIN]) --> A[Hello]\nA --> END([END])\n```\n",
			listed: true, name: "flowy", description: "Flow skill", typ: TypeFlow},
		{kimiTest: "test_skill.py::test_discover_subdir_skill_no_frontmatter_falls_back_to_body_line", dir: "bare",
			text:   "This is a skill body without frontmatter at all.\nSecond line.\n",
			listed: true, name: "bare", description: "This is a skill body without frontmatter at all.", typ: TypeStandard},
		{kimiTest: "test_skill.py::test_discover_skill_description_truncated_at_body_fallback", dir: "long",
			text:   strings.Repeat("a", 300),
			listed: true, name: "long", description: strings.Repeat("a", 239) + "…", typ: TypeStandard},
		{kimiTest: "test_skill.py::test_discover_skill_description_frontmatter_not_truncated", dir: "long2",
			text:   "---\nname: long2\ndescription: " + strings.Repeat("b", 900) + "\n---\nBody here\n",
			listed: true, name: "long2", description: strings.Repeat("b", 900), typ: TypeStandard},
		{kimiTest: "test_skill.py::test_discover_subdir_skill_malformed_frontmatter_opener_not_used_as_description", dir: "demo",
			text:   "---\n# Heading\nBody.\n",
			listed: true, name: "demo", description: "# Heading", typ: TypeStandard},
		{kimiTest: "unclosed front matter keeps the skill (issue 18 #4)", dir: "open",
			text:   "---\nname: open-name\ndescription: never closed\n",
			listed: true, name: "open", description: "name: open-name", typ: TypeStandard},
		{kimiTest: "empty front matter", dir: "emptyfm",
			text:   "---\n---\nDoes things.\n",
			listed: true, name: "emptyfm", description: "Does things.", typ: TypeStandard},
		{kimiTest: "an unknown type is refused", dir: "typo",
			text: "---\ntype: flowchart\n---\nbody\n"},
		{kimiTest: "CRLF line ends", dir: "crlf",
			text:   "---\r\nname: crlf\r\ndescription: Windows file\r\n---\r\nbody\r\n",
			listed: true, name: "crlf", description: "Windows file", typ: TypeStandard},
	}
	for _, tt := range tests {
		t.Run(tt.kimiTest, func(t *testing.T) {
			root := t.TempDir()
			testkit.WriteSkill(t, root, tt.dir, tt.text)
			s := skillsAt(root)
			list := s.List()
			if !tt.listed {
				if len(list) != 0 {
					t.Fatalf("listed %+v, want the skill left out", list[0])
				}
				if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], tt.dir) {
					t.Errorf("warnings %q, want one naming the file", s.Warnings)
				}
				return
			}
			if len(list) != 1 {
				t.Fatalf("%d skills (warnings %q), want 1", len(list), s.Warnings)
			}
			got := list[0]
			if got.Name != tt.name || got.Description != tt.description || got.Type != tt.typ {
				t.Errorf("skill %q %q %q, want %q %q %q", got.Name, got.Description, got.Type, tt.name, tt.description, tt.typ)
			}
		})
	}
}

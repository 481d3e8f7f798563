package skills

import (
	"errors"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/ralph"
)

// skillsAt finds the skills of the project at root, and no user's.
func skillsAt(root string) *Set {
	return Find(Options{WorkDir: root, ProjectRoot: root})
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// reviewSkill is the whole SKILL.md of the fixture's review skill, as /skill: sends it.
const reviewSkill = "---\nname: review\ndescription: \"Review a diff\"\n---\n\nReview the change for bugs and missing tests."

// skillsFixture is a work dir with a few skills.
func skillsFixture(t *testing.T) string {
	root := t.TempDir()
	testkit.WriteSkill(t, root, "review", lines(
		"---",
		"name: review",
		`description: "Review a diff"`,
		"---",
		"",
		"Review the change for bugs and missing tests.",
	))
	testkit.WriteSkill(t, root, "plain", "Say hello.\n")
	testkit.WriteSkill(t, root, "ship-it", lines(
		"---",
		"name: release",
		"description: Release flow",
		"type: flow",
		"---",
		"Runs the release.",
		"",
		"```d2",
		"BEGIN -> bump -> END",
		"bump: Bump the version in VERSION",
		"```",
	))
	testkit.WriteSkill(t, root, "broken-flow", lines(
		"---",
		"type: flow",
		"---",
		"```mermaid",
		"BEGIN --> check{Ready?}",
		"check -->|yes| END",
		"check -->|yes| check",
		"```",
	))
	testkit.WriteSkill(t, root, "typo", "---\ntype: flowchart\n---\nbody\n")
	testkit.WriteSkill(t, root, "open", "---\nname: open\n")
	testkit.WriteSkill(t, root, "empty", "---\nname: empty\n---\n")
	return root
}

func TestExpandPrompt(t *testing.T) {
	root := skillsFixture(t)
	tests := []struct {
		name   string
		prompt string
		want   Expansion
	}{
		{"plain prompt", "fix the build", Expansion{Prompt: "fix the build"}},
		{"a path is not a command", "/usr/bin/env is missing", Expansion{Prompt: "/usr/bin/env is missing"}},
		// Kimi CLI sends the whole SKILL.md, front matter included, and the request under
		// "User request:" (kimisoul.py, _make_skill_runner).
		{"skill without request", "/skill:review",
			Expansion{Prompt: reviewSkill, Skill: "review"}},
		{"skill with request", "  /skill:review   the diff in HEAD~1\nplease ",
			Expansion{Prompt: reviewSkill + "\n\nUser request:\nthe diff in HEAD~1\nplease", Skill: "review"}},
		{"skill without front matter", "/skill:plain", Expansion{Prompt: "Say hello.", Skill: "plain"}},
		{"found by front matter name", "/skill:release",
			Expansion{Prompt: "---\nname: release\ndescription: Release flow\ntype: flow\n---\nRuns the release.\n\n```d2\nBEGIN -> bump -> END\nbump: Bump the version in VERSION\n```",
				Skill: "release"}},
		{"front matter only, with a request", "/skill:empty do this", Expansion{Prompt: "---\nname: empty\n---\n\nUser request:\ndo this", Skill: "empty"}},
		{"front matter that never closes", "/skill:open", Expansion{Prompt: "---\nname: open", Skill: "open"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExpandPrompt(skillsAt(root), tt.prompt)
			if err != nil {
				t.Fatalf("ExpandPrompt: %v", err)
			}
			if got != tt.want {
				t.Errorf("expansion:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestExpandPromptFlow(t *testing.T) {
	root := skillsFixture(t)
	for _, prompt := range []string{"/flow:ship-it", "/flow:release\n"} {
		got, err := ExpandPrompt(skillsAt(root), prompt)
		if err != nil {
			t.Fatalf("ExpandPrompt(%q): %v", prompt, err)
		}
		if got.Flow == nil || got.MaxMoves != FlowMoves || got.Prompt != "" || got.Skill != "release" {
			t.Fatalf("ExpandPrompt(%q) = %+v, want the release flow", prompt, got)
		}
		n, ok := got.Flow.Node("bump")
		if !ok || n.Label != "Bump the version in VERSION" || n.Line != 10 {
			t.Errorf("bump node %+v, want its label from line 10 of SKILL.md", n)
		}
	}
	got, err := ExpandPrompt(skillsAt(root), "/flow:release for v2.1\nnow")
	if err != nil || got.Flow == nil || got.Request != "for v2.1\nnow" {
		t.Errorf("a flow with a request = %+v, %v; want the flow and the request", got, err)
	}
}

func TestExpandPromptErrors(t *testing.T) {
	root := skillsFixture(t)
	tests := []struct {
		prompt string
		want   error
		msg    string
	}{
		{"/skill:nope do it", ErrUnknown, `skill "nope": no such skill`},
		{"/flow:nope", ErrUnknown, `skill "nope": no such skill`},
		{"/skill:../review", ErrUnknown, `skill "../review": no such skill`},
		{"/skill:", ErrUnknown, `skill "": no such skill`},
		{"/flow:review", ErrNotFlow, `skill "review": skill is not a flow (its front matter lacks type: flow)`},
		{"/flow:broken-flow", ralph.ErrDuplicateBranchLabel,
			`skill "broken-flow": .agents/skills/broken-flow/SKILL.md:7: node "check": duplicate branch label "yes"`},
		{"/skill:typo", ErrInvalid, ""},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			_, err := ExpandPrompt(skillsAt(root), tt.prompt)
			var se *Error
			if !errors.As(err, &se) || !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want a *Error wrapping %v", err, tt.want)
			}
			if tt.msg != "" && err.Error() != tt.msg {
				t.Errorf("message:\n got %s\nwant %s", err, tt.msg)
			}
		})
	}
}

func TestExpandPromptWithoutSkillsDir(t *testing.T) {
	_, err := ExpandPrompt(skillsAt(t.TempDir()), "/skill:review")
	if !errors.Is(err, ErrUnknown) {
		t.Errorf("error %v, want ErrUnknown", err)
	}
}

func TestValidSkillName(t *testing.T) {
	for name, want := range map[string]bool{
		"review": true, "release-notes": true, "fix_2": true, "A-Z_09": true,
		"": false, "../review": false, "a b": false, "a/b": false, "é": false, "a\n": false, "-": true,
	} {
		if got := validSkillName(name); got != want {
			t.Errorf("validSkillName(%q) = %v, want %v", name, got, want)
		}
	}
}

package testkit

import (
	"path/filepath"
	"testing"
)

// WriteSkill creates .agents/skills/<name>/SKILL.md below root with the given text.
func WriteSkill(t testing.TB, root, name, text string) {
	t.Helper()
	WriteFile(t, filepath.Join(root, ".agents", "skills", name, "SKILL.md"), text)
}

package tools

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestREADMENamesEveryTool: docs/how-it-works.md's Tools bullet, the users' list of the built-ins,
// names every tool of the table, so a new tool cannot be left out of it.
func TestREADMENamesEveryTool(t *testing.T) {
	_, bullet, ok := strings.Cut(testkit.DocSection(t, filepath.Join("..", "docs", "how-it-works.md"), "# How it works"), "\n- **Tools** ")
	if !ok {
		t.Fatal("docs/how-it-works.md has no **Tools** bullet")
	}
	bullet, _, _ = strings.Cut(bullet, "\n- ")
	words := strings.FieldsFunc(bullet, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') })
	for _, tool := range AllBuiltins() {
		found := false
		for _, w := range words {
			found = found || w == tool.Name()
		}
		if !found {
			t.Errorf("docs/how-it-works.md's Tools bullet does not name %s", tool.Name())
		}
	}
}

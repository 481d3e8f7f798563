package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMENamesEveryTool: the README's Tools bullet, the users' list of the built-ins,
// names every tool of the table, so a new tool cannot be left out of it.
func TestREADMENamesEveryTool(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, bullet, ok := strings.Cut(string(raw), "\n- **Tools** ")
	if !ok {
		t.Fatal("the README has no **Tools** bullet")
	}
	bullet, _, _ = strings.Cut(bullet, "\n- ")
	words := strings.FieldsFunc(bullet, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') })
	for _, tool := range AllBuiltins() {
		found := false
		for _, w := range words {
			found = found || w == tool.Name()
		}
		if !found {
			t.Errorf("the README's Tools bullet does not name %s", tool.Name())
		}
	}
}

package protocols_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/model/protocols"
)

// docs/providers.md's table of provider types has a row for each type the table here
// speaks, and none for a type it does not.
func TestREADMENamesEveryProviderType(t *testing.T) {
	b, err := os.ReadFile("../../docs/providers.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n| `type` | protocol |")
	if !ok {
		t.Fatal("docs/providers.md has no table of provider types (| `type` | protocol | …)")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	var documented []string
	for _, row := range strings.Split(table, "\n")[1:] {
		first, _, _ := strings.Cut(strings.TrimPrefix(row, "|"), "|")
		for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(first, -1) {
			documented = append(documented, m[1])
		}
	}
	slices.Sort(documented)
	if want := protocols.Types(); !slices.Equal(documented, want) {
		t.Errorf("docs/providers.md's provider types are %v, the protocols' %v", documented, want)
	}
}

// Every protocol has a name among its types, a client, a reader and a path, and no type
// belongs to two.
func TestEveryRowIsWhole(t *testing.T) {
	owner := map[string]string{}
	for _, p := range protocols.All {
		if _, ok := p.Types[p.Name]; !ok || p.New == nil || p.Read == nil || !strings.HasPrefix(p.Path, "/") {
			t.Errorf("row %q is not whole: %+v", p.Name, p)
		}
		for typ := range p.Types {
			if other, dup := owner[typ]; dup {
				t.Errorf("type %q is both %s's and %s's", typ, other, p.Name)
			}
			owner[typ] = p.Name
		}
	}
}

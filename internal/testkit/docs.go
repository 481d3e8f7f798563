package testkit

import (
	"os"
	"strings"
	"testing"
)

// DocSection returns the section of the Markdown file at path that starts with the heading
// line heading ("## Flags"), without that line, up to the next heading of the same or a
// higher level outside a code block. Tests read the user docs through it, so a section can
// move between pages by changing the path its test names.
func DocSection(t testing.TB, path, heading string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	level := strings.IndexByte(heading, ' ')
	var out []string
	in, code := false, false
	for line := range strings.SplitSeq(string(raw), "\n") {
		if strings.HasPrefix(line, "```") {
			code = !code
		}
		if !code && strings.HasPrefix(line, "#") {
			if in && strings.IndexByte(line, ' ') <= level {
				break
			}
			if line == heading {
				in = true
				continue
			}
		}
		if in {
			out = append(out, line)
		}
	}
	if !in {
		t.Fatalf("%s has no heading %q", path, heading)
	}
	return strings.Join(out, "\n")
}

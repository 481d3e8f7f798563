package skills

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
)

// ErrFrontMatter means a SKILL.md front matter block is not a YAML mapping: Kimi CLI leaves
// such a skill out, and so does kimi-run (with a warning naming the file).
var ErrFrontMatter = errors.New("front matter is not valid YAML")

// frontMatter splits the YAML block between a first line `---` and the next `---` line off
// text, by Kimi CLI's rules (utils/frontmatter.py): no opening `---`, a block that never
// closes, or an empty block mean no front matter and the whole text is the body; a block
// that is not YAML, or whose YAML is not a mapping, is an error.
func frontMatter(text string) (map[string]any, string, error) {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return nil, text, nil
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "---" {
			continue
		}
		block := strings.TrimSpace(strings.Join(lines[1:i], ""))
		body := strings.Join(lines[i+1:], "")
		if block == "" {
			return nil, body, nil
		}
		var meta map[string]any
		if err := yaml.Unmarshal([]byte(strings.ReplaceAll(block, "\r\n", "\n")), &meta); err != nil {
			// The parser's message quotes the file; one line of it says where.
			return nil, "", fmt.Errorf("%w: %s", ErrFrontMatter, firstErrLine(err))
		}
		if meta == nil {
			return nil, "", fmt.Errorf("%w: it must be a mapping of keys to values", ErrFrontMatter)
		}
		return meta, body, nil
	}
	return nil, text, nil // never closed: Kimi reads the whole file as the body
}

// metaString reads key from front matter: "" when it is absent, null, empty or false (Kimi
// CLI falls back to the default then); any other non-string is an error, as Kimi's skill
// model refuses it.
func metaString(meta map[string]any, key string) (string, error) {
	switch v := meta[key].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case bool:
		if !v {
			return "", nil
		}
	}
	return "", fmt.Errorf("%w: %s is %v, not text", ErrFrontMatter, key, meta[key])
}

func firstErrLine(err error) string {
	s, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	return strings.TrimSpace(s)
}

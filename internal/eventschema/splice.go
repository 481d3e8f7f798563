package eventschema

import (
	"fmt"
	"strings"
)

// Splice returns md with the content between each pair of markers
//
//	<!-- BEGIN generated NAME: how to regenerate -->
//	<!-- END generated NAME -->
//
// replaced by parts[NAME]. Every part must have its pair of markers, and every pair a part.
func Splice(md string, parts map[string]string) (string, error) {
	seen := map[string]bool{}
	var out strings.Builder
	rest := md
	for {
		i := strings.Index(rest, "<!-- BEGIN generated ")
		if i < 0 {
			break
		}
		lineEnd := strings.Index(rest[i:], "-->\n")
		if lineEnd < 0 {
			return "", fmt.Errorf("unterminated marker at %q", rest[i:min(len(rest), i+40)])
		}
		begin := rest[i : i+lineEnd+len("-->\n")]
		name, _, _ := strings.Cut(strings.TrimPrefix(begin, "<!-- BEGIN generated "), " ")
		name = strings.TrimSuffix(name, ":")
		part, ok := parts[name]
		if seen[name] {
			return "", fmt.Errorf("two pairs of markers for %q", name)
		}
		if !ok {
			return "", fmt.Errorf("markers for %q, which is not a generated part", name)
		}
		end := "<!-- END generated " + name + " -->"
		j := strings.Index(rest[i:], end)
		if j < 0 {
			return "", fmt.Errorf("no %q after its BEGIN marker", end)
		}
		out.WriteString(rest[:i] + begin + part + end)
		rest = rest[i+j+len(end):]
		seen[name] = true
	}
	out.WriteString(rest)
	for name := range parts {
		if !seen[name] {
			return "", fmt.Errorf("no markers for the generated part %q", name)
		}
	}
	return out.String(), nil
}

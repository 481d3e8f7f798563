package agentspec

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The expected outputs are what Jinja renders with Kimi CLI's settings (trim_blocks,
// lstrip_blocks, ${...} variables), so that a Kimi prompt file renders the same here.
func TestRender(t *testing.T) {
	tests := []struct {
		name, template string
		vars           map[string]string
		want           string
	}{
		{"var", "a ${X} b", map[string]string{"X": "1"}, "a 1 b"},
		{"spaces in var", "a ${ X } b", map[string]string{"X": "1"}, "a 1 b"},
		{"if block own lines", "top\n{% if X %}\nyes\n{% endif %}\nend", map[string]string{"X": "1"}, "top\nyes\nend"},
		{"if false own lines", "top\n{% if X %}\nyes\n{% endif %}\nend", map[string]string{"X": ""}, "top\nend"},
		{"indented tags", "top\n    {% if X %}\n  yes\n    {% else %}\n  no\n    {% endif %}\nend", map[string]string{"X": ""}, "top\n  no\nend"},
		{"inline if keep newline", "on **${OS}**.{% if OS == \"Windows\" %} Use slashes.{% endif +%}\nnext", map[string]string{"OS": "Windows"}, "on **Windows**. Use slashes.\nnext"},
		{"inline if false keep newline", "on **${OS}**.{% if OS == \"Windows\" %} Use slashes.{% endif +%}\nnext", map[string]string{"OS": "Linux"}, "on **Linux**.\nnext"},
		{"blank line before if", "Use this.\n{% if A %}\n\n## Extra\n\n${A}\n{% endif %}\n\n# Next", map[string]string{"A": "dirs"}, "Use this.\n\n## Extra\n\ndirs\n\n# Next"},
		{"blank line before if false", "Use this.\n{% if A %}\n\n## Extra\n\n${A}\n{% endif %}\n\n# Next", map[string]string{"A": ""}, "Use this.\n\n# Next"},
		{"elif", "{% if A == 'x' %}X{% elif A == 'y' %}Y{% else %}Z{% endif %}", map[string]string{"A": "y"}, "Y"},
		{"not and or", "{% if not A and (B or C) %}T{% else %}F{% endif %}", map[string]string{"A": "", "B": "", "C": "c"}, "T"},
		{"minus strip", "a   \n  {%- if A -%}   \n  b  {%- endif %}\nc", map[string]string{"A": "1"}, "abc"},
		{"comment line", "a\n{# note #}\nb", map[string]string{}, "a\nb"},
		{"plus lstrip off", "a\n  {%+ if A %}b{% endif %}", map[string]string{"A": "1"}, "a\n  b"},
		{"tag at template start", "  {% if A %}\nx\n{% endif %}\n", map[string]string{"A": "1"}, "x\n"},
		{"crlf", "a\r\n{% if A %}\r\nb\r\n{% endif %}\r\nc", map[string]string{"A": "1"}, "a\nb\nc"},
		{"dollar without brace", "cost $5 and {{ x }} and {x}", map[string]string{}, "cost $5 and {{ x }} and {x}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Render(tt.template, "p.md", tt.vars, nil)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if got != tt.want {
				t.Errorf("Render:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestRenderInclude(t *testing.T) {
	files := map[string]string{
		"rules.md": "Rules for ${WHO}.\n{% include \"inner.md\" %}",
		"inner.md": "inner",
		"loop.md":  "{% include 'loop.md' %}",
	}
	load := func(name string) (string, string, error) {
		text, ok := files[name]
		if !ok {
			return "", "", fmt.Errorf("no file %s", name)
		}
		return text, name, nil
	}
	got, err := Render("A\n{% include \"rules.md\" %}\nB", "p.md", map[string]string{"WHO": "bots"}, load)
	// The tag eats the newline after it, as in Jinja.
	if err != nil || got != "A\nRules for bots.\ninnerB" {
		t.Errorf("Render = %q, %v", got, err)
	}
	if _, err := Render("{% include 'loop.md' %}", "p.md", nil, load); err == nil || !strings.Contains(err.Error(), "too deep") {
		t.Errorf("an include cycle gave %v", err)
	}
	if _, err := Render("x\n{% include 'gone.md' %}", "p.md", nil, load); err == nil || !strings.Contains(err.Error(), "p.md:2") || !strings.Contains(err.Error(), "gone.md") {
		t.Errorf("a missing include gave %v", err)
	}
}

func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name, template, want string
		undefined            bool
	}{
		{"undefined variable", "line one\n${KIMI_NOPE}", "p.md:2: undefined variable KIMI_NOPE", true},
		{"undefined in a condition", "{% if NOPE %}x{% endif %}", "p.md:1: undefined variable NOPE", true},
		{"undefined in an untaken branch is fine", "", "", false},
		{"expression", "${A | upper}", "only plain variable names", false},
		{"unclosed variable", "a ${A", "never closed", false},
		{"unclosed if", "{% if A %}x", "without {% endif %}", false},
		{"stray endif", "x{% endif %}", "without {% if %}", false},
		{"unknown tag", "{% for x in y %}{% endfor %}", "unsupported tag {% for %}", false},
		{"bad condition", "{% if A == %}x{% endif %}", "ends too early", false},
		{"unquoted include", "{% include rules.md %}", "must be quoted", false},
	}
	vars := map[string]string{"A": "a"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == "" {
				if got, err := Render("{% if A %}ok{% else %}${NOPE}{% endif %}", "p.md", vars, nil); err != nil || got != "ok" {
					t.Errorf("Render = %q, %v", got, err)
				}
				return
			}
			_, err := Render(tt.template, "p.md", vars, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			var te *TemplateError
			if !errors.As(err, &te) {
				t.Errorf("error %T is not a *TemplateError", err)
			}
			if errors.Is(err, ErrUndefined) != tt.undefined {
				t.Errorf("errors.Is(err, ErrUndefined) = %v", !tt.undefined)
			}
		})
	}
}

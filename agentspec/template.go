package agentspec

import (
	"errors"
	"fmt"
	"strings"
)

// The template language of system prompt files is the small part of Jinja that Kimi CLI's
// agent prompts use, with Kimi's settings: ${NAME} inserts a variable, {% if %} / {% elif %}
// / {% else %} / {% endif %} choose text, {% include "file" %} inserts another template,
// {# ... #} is a comment. A block tag alone on its line leaves no blank line behind (Jinja's
// trim_blocks and lstrip_blocks); "-" beside the delimiter strips all whitespace on that
// side, "+" keeps it. Conditions compare strings: NAME, "literal", ==, !=, not, and, or,
// parentheses; a variable is true when it is not empty. Every variable must be defined.

// ErrUndefined is wrapped by the error for a variable the template uses but nobody defined.
var ErrUndefined = errors.New("undefined variable")

// TemplateError is a problem in a template, with the file and line where it is.
type TemplateError struct {
	File string
	Line int
	Err  error
}

func (e *TemplateError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *TemplateError) Unwrap() error { return e.Err }

// Loader reads the template name (an include's argument, relative to the directory of the
// top template) and returns its text and a name to show in errors.
type Loader func(name string) (text, display string, err error)

// maxIncludeDepth stops include cycles.
const maxIncludeDepth = 16

// Render renders the template text (shown as display in errors) with vars.
func Render(text, display string, vars map[string]string, load Loader) (string, error) {
	r := &renderer{vars: vars, load: load}
	var b strings.Builder
	if err := r.render(&b, text, display, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

type renderer struct {
	vars map[string]string
	load Loader
}

func (r *renderer) render(b *strings.Builder, text, display string, depth int) error {
	text = strings.ReplaceAll(text, "\r\n", "\n") // as Python reads text files
	toks, err := lex(text, display)
	if err != nil {
		return err
	}
	nodes, rest, err := parse(toks, display, nil)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return &TemplateError{File: display, Line: rest[0].line, Err: fmt.Errorf("{%% %s %%} without {%% if %%}", rest[0].word)}
	}
	return r.exec(b, nodes, display, depth)
}

func (r *renderer) exec(b *strings.Builder, nodes []node, display string, depth int) error {
	for _, n := range nodes {
		switch n.kind {
		case nodeText:
			b.WriteString(n.text)
		case nodeVar:
			v, ok := r.vars[n.text]
			if !ok {
				return &TemplateError{File: display, Line: n.line, Err: fmt.Errorf("%w %s", ErrUndefined, n.text)}
			}
			b.WriteString(v)
		case nodeIf:
			for _, br := range n.branches {
				ok := true
				if br.cond != nil {
					v, err := br.cond.eval(r.vars)
					if err != nil {
						return &TemplateError{File: display, Line: br.line, Err: err}
					}
					ok = v != ""
				}
				if ok {
					if err := r.exec(b, br.body, display, depth); err != nil {
						return err
					}
					break
				}
			}
		case nodeInclude:
			if depth >= maxIncludeDepth {
				return &TemplateError{File: display, Line: n.line, Err: errors.New("includes nest too deep (a cycle?)")}
			}
			if r.load == nil {
				return &TemplateError{File: display, Line: n.line, Err: fmt.Errorf("cannot include %q here", n.text)}
			}
			text, shown, err := r.load(n.text)
			if err != nil {
				return &TemplateError{File: display, Line: n.line, Err: fmt.Errorf("include %q: %w", n.text, err)}
			}
			if err := r.render(b, text, shown, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// Tokens.

type tokKind int

const (
	tokText tokKind = iota
	tokVar
	tokTag
)

type token struct {
	kind tokKind
	text string // text; the variable name; the tag's content
	word string // a tag's first word
	line int
}

// isIdent reports whether s is a template identifier: a letter or "_", then letters,
// digits or "_". A loop rather than a regexp, so start-up compiles nothing.
func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return s != ""
}

// lex splits text into text, variable and tag tokens, applying the whitespace rules.
func lex(src, display string) ([]token, error) {
	var toks []token
	line := 1
	// trimNext removes the next text's leading newline (1) or all its leading space (2).
	trimNext := 0
	atStart := true // nothing but text so far: a tag here starts the template's first line
	addText := func(s string) {
		switch trimNext {
		case 1:
			if strings.HasPrefix(s, "\r\n") {
				s = s[2:]
			} else if strings.HasPrefix(s, "\n") {
				s = s[1:]
			}
		case 2:
			s = strings.TrimLeft(s, " \t\r\n")
		}
		trimNext = 0
		if s != "" {
			toks = append(toks, token{kind: tokText, text: s})
		}
	}
	for {
		i := indexOpen(src)
		if i < 0 {
			addText(src)
			return toks, nil
		}
		before, open := src[:i], src[i:i+2]
		closeDelim := map[string]string{"${": "}", "{%": "%}", "{#": "#}"}[open]
		j := strings.Index(src[i+2:], closeDelim)
		if j < 0 {
			return nil, &TemplateError{File: display, Line: line + strings.Count(before, "\n"), Err: fmt.Errorf("%s is never closed with %s", open, closeDelim)}
		}
		inner := src[i+2 : i+2+j]
		rest := src[i+2+j+len(closeDelim):]
		tagLine := line + strings.Count(before, "\n")
		line = tagLine + strings.Count(inner, "\n") + strings.Count(src[i+2+j:i+2+j+len(closeDelim)], "\n")

		wasStart := atStart
		atStart = false
		if open == "${" {
			addText(before)
			name := strings.TrimSpace(inner)
			if !isIdent(name) {
				return nil, &TemplateError{File: display, Line: tagLine, Err: fmt.Errorf("${%s}: only plain variable names are supported", inner)}
			}
			toks = append(toks, token{kind: tokVar, text: name, line: tagLine})
			src = rest
			continue
		}
		// A block tag or a comment: whitespace control on both sides.
		lead, trail := byte(0), byte(0)
		if strings.HasPrefix(inner, "-") || strings.HasPrefix(inner, "+") {
			lead, inner = inner[0], inner[1:]
		}
		if strings.HasSuffix(inner, "-") || strings.HasSuffix(inner, "+") {
			trail, inner = inner[len(inner)-1], inner[:len(inner)-1]
		}
		switch lead {
		case '-':
			before = strings.TrimRight(before, " \t\r\n")
		case '+':
		default:
			before = lstrip(before, wasStart)
		}
		addText(before)
		switch trail {
		case '-':
			trimNext = 2
		case '+':
			trimNext = 0
		default:
			trimNext = 1
		}
		if open == "{%" {
			content := strings.TrimSpace(inner)
			word, _, _ := strings.Cut(content, " ")
			toks = append(toks, token{kind: tokTag, text: content, word: word, line: tagLine})
		}
		src = rest
	}
}

// indexOpen finds the next "${", "{%" or "{#".
func indexOpen(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '$' && s[i+1] == '{') || (s[i] == '{' && (s[i+1] == '%' || s[i+1] == '#')) {
			return i
		}
	}
	return -1
}

// lstrip removes the spaces and tabs before a tag that is the first thing on its line. s is
// the text between the previous tag (or the template's start, when atStart) and this one.
func lstrip(s string, atStart bool) string {
	t := strings.TrimRight(s, " \t")
	if strings.HasSuffix(t, "\n") || (atStart && t == "") {
		return t
	}
	return s
}

// Syntax tree.

type nodeKind int

const (
	nodeText nodeKind = iota
	nodeVar
	nodeIf
	nodeInclude
)

type node struct {
	kind     nodeKind
	text     string
	line     int
	branches []branch
}

type branch struct {
	cond expr // nil: else
	line int
	body []node
}

// parse builds nodes until a tag whose word is in stop, and returns the tokens from that tag on.
func parse(toks []token, display string, stop []string) ([]node, []token, error) {
	var out []node
	for len(toks) > 0 {
		t := toks[0]
		switch t.kind {
		case tokText:
			out = append(out, node{kind: nodeText, text: t.text})
			toks = toks[1:]
			continue
		case tokVar:
			out = append(out, node{kind: nodeVar, text: t.text, line: t.line})
			toks = toks[1:]
			continue
		}
		for _, s := range stop {
			if t.word == s {
				return out, toks, nil
			}
		}
		switch t.word {
		case "if":
			n, rest, err := parseIf(toks, display)
			if err != nil {
				return nil, nil, err
			}
			out, toks = append(out, n), rest
		case "include":
			name, err := includeName(strings.TrimSpace(strings.TrimPrefix(t.text, "include")))
			if err != nil {
				return nil, nil, &TemplateError{File: display, Line: t.line, Err: err}
			}
			out = append(out, node{kind: nodeInclude, text: name, line: t.line})
			toks = toks[1:]
		case "elif", "else", "endif":
			return out, toks, nil // the caller reports it as out of place
		default:
			return nil, nil, &TemplateError{File: display, Line: t.line, Err: fmt.Errorf("unsupported tag {%% %s %%}", t.word)}
		}
	}
	return out, nil, nil
}

func parseIf(toks []token, display string) (node, []token, error) {
	n := node{kind: nodeIf, line: toks[0].line}
	t := toks[0]
	condText := strings.TrimSpace(strings.TrimPrefix(t.text, t.word))
	for {
		var cond expr
		if t.word != "else" {
			var err error
			if cond, err = parseExpr(condText); err != nil {
				return n, nil, &TemplateError{File: display, Line: t.line, Err: fmt.Errorf("{%% %s %%}: %w", t.text, err)}
			}
		}
		body, rest, err := parse(toks[1:], display, []string{"elif", "else", "endif"})
		if err != nil {
			return n, nil, err
		}
		n.branches = append(n.branches, branch{cond: cond, line: t.line, body: body})
		if len(rest) == 0 {
			return n, nil, &TemplateError{File: display, Line: n.line, Err: errors.New("{% if %} without {% endif %}")}
		}
		next := rest[0]
		if t.word == "else" && next.word != "endif" {
			return n, nil, &TemplateError{File: display, Line: next.line, Err: fmt.Errorf("{%% %s %%} after {%% else %%}", next.word)}
		}
		if next.word == "endif" {
			return n, rest[1:], nil
		}
		t, toks = next, rest
		condText = strings.TrimSpace(strings.TrimPrefix(t.text, t.word))
	}
}

func includeName(arg string) (string, error) {
	if len(arg) >= 2 && (arg[0] == '"' || arg[0] == '\'') && arg[len(arg)-1] == arg[0] {
		return arg[1 : len(arg)-1], nil
	}
	return "", fmt.Errorf("{%% include %s %%}: the file name must be quoted", arg)
}

package ralph

import (
	"fmt"
	"strings"
)

// ParseD2 parses a D2 diagram into a validated flow.
//
// Supported top-level statements: `id`, `id: label`, `a -> b`, `b <- a`, chains
// `a -> b -> c: label` (the label belongs to the last edge), labels that are bare text,
// "double-quoted" (backslash escapes), 'single-quoted' or block strings such as
// `|md ... |` and `||md ... ||` (indentation removed), `x.label: text`, `;` separators and
// `#` comments. `{...}` blocks are skipped, with anything declared inside them; property
// paths (`x.shape: diamond`, `x.style.fill: red`), top-level keywords (`direction: right`,
// `vars`, `classes`) and edge references (`(a -> b)[0]...`) are ignored. Ids match
// [A-Za-z0-9_][A-Za-z0-9_./-]*. Undirected (`--`) and two-way (`<->`) connections are
// errors, since a flow needs a direction.
//
// BEGIN, END and decisions are recognised as in ParseMermaid.
func ParseD2(name string, src []byte) (*Flow, error) {
	return parseD2(name, string(src), 1)
}

// parseD2 parses src whose first line is line number firstLine of the file name.
func parseD2(name, src string, firstLine int) (*Flow, error) {
	p := &d2Parser{src: src, line: firstLine, file: name, f: NewFlow(name)}
	for {
		if err := p.blank(); err != nil {
			return nil, err
		}
		if p.eof() {
			break
		}
		if err := p.statement(); err != nil {
			return nil, err
		}
	}
	p.f.classify()
	if err := p.f.Validate(); err != nil {
		return nil, err
	}
	return p.f, nil
}

// d2Reserved are D2 keywords: a key path through one of them sets a property, not a node.
var d2Reserved = map[string]bool{
	"shape": true, "style": true, "label": true, "icon": true, "near": true, "width": true,
	"height": true, "tooltip": true, "link": true, "direction": true, "constraint": true,
	"class": true, "classes": true, "vars": true, "grid-rows": true, "grid-columns": true,
	"grid-gap": true, "vertical-gap": true, "horizontal-gap": true, "top": true, "left": true,
	"source-arrowhead": true, "target-arrowhead": true, "layers": true, "scenarios": true,
	"steps": true, "filled": true,
}

// d2Parser reads a whole D2 source; block strings and blocks may span lines.
type d2Parser struct {
	src  string
	i    int
	line int
	file string
	f    *Flow
}

func (p *d2Parser) eof() bool { return p.i >= len(p.src) }

func (p *d2Parser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.src[p.i]
}

func (p *d2Parser) errorf(line int, node, format string, args ...any) error {
	return &ParseError{File: p.file, Line: line, Node: node, Msg: fmt.Sprintf(format, args...)}
}

// spaces skips blanks within the line.
func (p *d2Parser) spaces() {
	for !p.eof() && (p.src[p.i] == ' ' || p.src[p.i] == '\t' || p.src[p.i] == '\r') {
		p.i++
	}
}

// blank skips whitespace, newlines, `;` and comments between statements.
func (p *d2Parser) blank() error {
	for !p.eof() {
		switch c := p.src[p.i]; {
		case c == '\n':
			p.line++
			p.i++
		case c == ' ' || c == '\t' || c == '\r' || c == ';':
			p.i++
		case strings.HasPrefix(p.src[p.i:], `"""`):
			start := p.line
			j := strings.Index(p.src[p.i+3:], `"""`)
			if j < 0 {
				return p.errorf(start, "", `unterminated """ block comment`)
			}
			p.advance(j + 6)
		case c == '#':
			p.toEOL()
		default:
			return nil
		}
	}
	return nil
}

// advance moves n bytes on, counting the newlines passed.
func (p *d2Parser) advance(n int) {
	p.line += strings.Count(p.src[p.i:p.i+n], "\n")
	p.i += n
}

// toEOL moves to the next newline without consuming it.
func (p *d2Parser) toEOL() {
	if j := strings.IndexByte(p.src[p.i:], '\n'); j >= 0 {
		p.i += j
	} else {
		p.i = len(p.src)
	}
}

// statement reads one top-level statement.
func (p *d2Parser) statement() error {
	line := p.line
	switch p.peek() {
	case '{':
		return p.skipBlock()
	case '(':
		return p.skipStatement() // styling of an edge reference
	}
	keys := []string{}
	var edges [][2]int // indexes into keys: from, to
	id, err := p.ident()
	if err != nil {
		return err
	}
	keys = append(keys, id)
	for {
		p.spaces()
		op, err := p.arrow(keys[len(keys)-1])
		if err != nil {
			return err
		}
		if op == "" {
			break
		}
		p.spaces()
		id, err := p.ident()
		if err != nil {
			return err
		}
		keys = append(keys, id)
		a, b := len(keys)-2, len(keys)-1
		if op == "<-" {
			a, b = b, a
		}
		edges = append(edges, [2]int{a, b})
	}
	p.spaces()
	label, hasLabel := "", false
	if p.peek() == ':' {
		p.i++
		p.spaces()
		if label, hasLabel, err = p.value(keys[len(keys)-1]); err != nil {
			return err
		}
		p.spaces()
	}
	if p.peek() == '{' {
		if err := p.skipBlock(); err != nil {
			return err
		}
		p.spaces()
	}
	if c := p.peek(); !p.eof() && c != '\n' && c != ';' && c != '#' {
		return p.errorf(p.line, keys[len(keys)-1], "unexpected %q", clip(p.src[p.i:lineEnd(p.src, p.i)]))
	}
	if len(edges) == 0 {
		p.declare(id, label, hasLabel, line)
		return nil
	}
	for _, k := range keys {
		p.f.ensure(k, line)
	}
	for n, e := range edges {
		edge := Edge{From: keys[e[0]], To: keys[e[1]], Line: line}
		if n == len(edges)-1 && hasLabel {
			edge.Label = label
		}
		p.f.AddEdge(edge)
	}
	return nil
}

// declare applies `key` or `key: value` where key is not part of a connection.
func (p *d2Parser) declare(key, label string, hasLabel bool, line int) {
	segs := strings.Split(key, ".")
	if d2Reserved[segs[0]] || segs[0] == "_" {
		return // a keyword of the diagram itself
	}
	for k := 1; k < len(segs); k++ {
		if !d2Reserved[segs[k]] {
			continue
		}
		if segs[k] == "label" && k == len(segs)-1 && hasLabel {
			p.f.setLabel(strings.Join(segs[:k], "."), label, line)
		}
		return
	}
	p.f.ensure(key, line)
	if hasLabel {
		p.f.setLabel(key, label, line)
	}
}

// ident reads an id at the cursor. A dash directly before `>` or another dash ends the
// id, so that `a->b` is a connection.
func (p *d2Parser) ident() (string, error) {
	start := p.i
	if p.eof() || !isASCIIAlnum(p.src[p.i]) {
		return "", p.errorf(p.line, "", "expected a node id ([A-Za-z0-9_][A-Za-z0-9_./-]*), found %q",
			clip(p.src[p.i:lineEnd(p.src, p.i)]))
	}
	for !p.eof() {
		c := p.src[p.i]
		if c == '-' && p.i+1 < len(p.src) && (p.src[p.i+1] == '>' || p.src[p.i+1] == '-') {
			break
		}
		if !isASCIIAlnum(c) && c != '.' && c != '/' && c != '-' {
			break
		}
		p.i++
	}
	return p.src[start:p.i], nil
}

// arrow reads a connection operator, returning "->", "<-" or "" when there is none.
func (p *d2Parser) arrow(from string) (string, error) {
	rest := p.src[p.i:]
	switch {
	case strings.HasPrefix(rest, "<->"):
		return "", p.errorf(p.line, from, "two-way connection <-> has no direction; use ->")
	case strings.HasPrefix(rest, "--"):
		return "", p.errorf(p.line, from, "undirected connection -- has no direction; use ->")
	case strings.HasPrefix(rest, "->"), strings.HasPrefix(rest, "<-"):
		p.i += 2
		return rest[:2], nil
	}
	return "", nil
}

// value reads the text after `key:`; ok is false when there is none (`key: {...}`).
func (p *d2Parser) value(node string) (string, bool, error) {
	line := p.line
	switch c := p.peek(); {
	case p.eof() || c == '\n' || c == ';' || c == '{' || c == '#':
		return "", false, nil
	case c == '"':
		end := lineEnd(p.src, p.i)
		s, n, ok := unquote(p.src[p.i:end])
		if !ok {
			return "", false, p.errorf(line, node, "unterminated quoted label")
		}
		p.i += n
		return s, true, nil
	case c == '\'':
		end := lineEnd(p.src, p.i)
		j := strings.IndexByte(p.src[p.i+1:end], '\'')
		if j < 0 {
			return "", false, p.errorf(line, node, "unterminated quoted label")
		}
		s := p.src[p.i+1 : p.i+1+j]
		p.i += j + 2
		return s, true, nil
	case c == '|':
		return p.blockString(node)
	}
	start := p.i
	for !p.eof() {
		c := p.src[p.i]
		if c == '\n' || c == ';' || c == '{' || (c == '#' && p.i > start && isSpace(p.src[p.i-1])) {
			break
		}
		p.i++
	}
	return strings.TrimSpace(p.src[start:p.i]), true, nil
}

// blockString reads `|tag ... |`; any number of pipes (and an optional backtick) may open
// it, and the same sequence mirrored closes it.
func (p *d2Parser) blockString(node string) (string, bool, error) {
	line := p.line
	n := 0
	for p.i+n < len(p.src) && p.src[p.i+n] == '|' {
		n++
	}
	p.i += n
	closer := strings.Repeat("|", n)
	if p.peek() == '`' {
		p.i++
		closer = "`" + closer
	}
	for !p.eof() && (isASCIIAlnum(p.src[p.i]) || p.src[p.i] == '-') {
		p.i++ // the language tag, such as md
	}
	// A comment after the tag (`|md # note`) belongs to the D2 source, not to the label, as
	// Kimi CLI reads it (tests/core/test_agent_flow.py, markdown_block_with_comment).
	rest := p.i
	for rest < len(p.src) && (p.src[rest] == ' ' || p.src[rest] == '\t') {
		rest++
	}
	if rest < len(p.src) && p.src[rest] == '#' {
		p.i = lineEnd(p.src, rest)
	}
	j := strings.Index(p.src[p.i:], closer)
	if j < 0 {
		return "", false, p.errorf(line, node, "unterminated block string: missing closing %s", closer)
	}
	body := p.src[p.i : p.i+j]
	p.advance(j + len(closer))
	return dedent(body), true, nil
}

// skipBlock skips a `{...}` block with nested blocks, quoted strings and comments.
func (p *d2Parser) skipBlock() error {
	line := p.line
	depth := 0
	for !p.eof() {
		switch c := p.src[p.i]; c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				p.i++
				return nil
			}
		case '\n':
			p.line++
		case '#':
			p.toEOL()
			continue
		case '"':
			if _, n, ok := unquote(p.src[p.i:lineEnd(p.src, p.i)]); ok {
				p.i += n
				continue
			}
		}
		p.i++
	}
	return p.errorf(line, "", "unterminated { block")
}

// skipStatement skips to the end of the line, and over any block on the way.
func (p *d2Parser) skipStatement() error {
	for !p.eof() && p.src[p.i] != '\n' {
		if p.src[p.i] == '{' {
			if err := p.skipBlock(); err != nil {
				return err
			}
			continue
		}
		p.i++
	}
	return nil
}

package ralph

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// ParseMermaid parses a Mermaid flowchart into a validated flow.
//
// Supported: an optional front-matter block and `flowchart`/`graph` header; `%%` comment
// lines; nodes `ID`, `ID[label]`, `ID(label)`, `ID{label}`, `ID([label])`, `ID((label))`,
// `ID(((label)))`, `ID[[label]]`, `ID[(label)]`, `ID{{label}}` and `ID>label]`, with plain
// or double-quoted labels (backslash escapes \" \\ \n \t); `:::class` suffixes; edges
// `-->`, `---`, `-.->`, `-.-`, `==>`, `===` (any length), labelled as `-->|label|` or
// `-- label -->`; chains `A --> B --> C`; several statements on a line separated by `;`.
// Lines starting with classDef, class, style, linkStyle, click, subgraph or direction, and
// a lone `end`, are ignored (nodes inside a subgraph still count). Node ids are letters,
// digits and underscores.
//
// The node labelled BEGIN (any case) is where the flow starts and the one labelled END is
// where it stops; a node with no label is labelled by its id. Any other node with more than
// one outgoing edge is a decision.
func ParseMermaid(name string, src []byte) (*Flow, error) {
	return parseMermaid(name, string(src), 1)
}

// parseMermaid parses src whose first line is line number firstLine of the file name.
func parseMermaid(name, src string, firstLine int) (*Flow, error) {
	f := NewFlow(name)
	started, inFront := false, false
	for i, raw := range strings.Split(src, "\n") {
		s := strings.TrimSpace(raw)
		switch {
		case inFront:
			inFront = s != "---"
			continue
		case s == "" || strings.HasPrefix(s, "%%"):
			continue
		case !started && s == "---":
			inFront = true
			continue
		}
		c := &mmdCursor{s: s, line: firstLine + i, file: name}
		if !started {
			started = true
			if w := c.word(); w == "flowchart" || w == "graph" || w == "flowchart-elk" {
				continue
			}
		}
		if err := c.statements(f); err != nil {
			return nil, err
		}
	}
	f.classify()
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// mmdKeywords start lines that style or group nodes without adding any.
var mmdKeywords = map[string]bool{
	"classDef": true, "class": true, "style": true, "linkStyle": true,
	"click": true, "subgraph": true, "direction": true,
}

// mmdLinks is the edge syntax. A plain link stands alone or takes a |label|; a labelled
// link opens with --, == or -. and closes with the matching arrow. The expressions are
// compiled on first use, so a run without a Mermaid flow never pays for them.
var mmdLinks = sync.OnceValue(func() (l struct {
	plain *regexp.Regexp
	close map[string]*regexp.Regexp
}) {
	l.plain = regexp.MustCompile(`^(?:-{2,}>|-{3,}|={2,}>|={3,}|-\.+->|-\.+-)`)
	l.close = map[string]*regexp.Regexp{
		"--": regexp.MustCompile(`-{2,}>|-{3,}`),
		"==": regexp.MustCompile(`={2,}>|={3,}`),
		"-.": regexp.MustCompile(`\.-+>|\.-+`),
	}
	return l
})

// mmdShapes lists node shape delimiters, longest openers first so that `((` wins over `(`.
var mmdShapes = []struct{ open, close string }{
	{"(((", ")))"}, {"([", "])"}, {"((", "))"}, {"[[", "]]"}, {"[(", ")]"}, {"{{", "}}"},
	{"[", "]"}, {"(", ")"}, {"{", "}"}, {">", "]"},
}

// mmdCursor reads one line of a Mermaid flowchart.
type mmdCursor struct {
	s    string
	i    int
	line int
	file string
}

func (c *mmdCursor) rest() string { return c.s[c.i:] }

func (c *mmdCursor) eof() bool { return c.i >= len(c.s) }

func (c *mmdCursor) spaces() {
	for c.i < len(c.s) && (c.s[c.i] == ' ' || c.s[c.i] == '\t') {
		c.i++
	}
}

// word returns the run of ASCII letters, digits and dashes at the cursor, without moving.
func (c *mmdCursor) word() string {
	j := c.i
	for j < len(c.s) && (isASCIIAlnum(c.s[j]) || c.s[j] == '-') {
		j++
	}
	return c.s[c.i:j]
}

func (c *mmdCursor) errorf(node, format string, args ...any) error {
	return &ParseError{File: c.file, Line: c.line, Node: node, Msg: fmt.Sprintf(format, args...)}
}

// statements reads every `;`-separated statement on the line.
func (c *mmdCursor) statements(f *Flow) error {
	for {
		c.spaces()
		if c.eof() {
			return nil
		}
		if c.s[c.i] == ';' {
			c.i++
			continue
		}
		if c.keyword() {
			return nil // styling runs to the end of the line
		}
		if err := c.chain(f); err != nil {
			return err
		}
	}
}

// keyword reports whether the statement at the cursor is one that only styles or groups.
func (c *mmdCursor) keyword() bool {
	w := c.word()
	after := strings.TrimSpace(c.s[c.i+len(w):])
	if w == "end" {
		return after == "" || after == ";"
	}
	return mmdKeywords[w] && (after == "" || c.s[c.i+len(w)] == ' ' || c.s[c.i+len(w)] == '\t')
}

// chain reads `node (link node)*` and adds its nodes and edges.
func (c *mmdCursor) chain(f *Flow) error {
	prev, err := c.node(f)
	if err != nil {
		return err
	}
	for {
		c.spaces()
		if c.eof() || c.s[c.i] == ';' {
			return nil
		}
		label, ok, err := c.link(prev)
		if err != nil {
			return err
		}
		if !ok {
			return c.errorf(prev, "expected an arrow such as --> after the node, found %q", clip(c.rest()))
		}
		c.spaces()
		next, err := c.node(f)
		if err != nil {
			return err
		}
		f.AddEdge(Edge{From: prev, To: next, Label: label, Line: c.line})
		prev = next
	}
}

// node reads a node reference with its optional shape, label and class.
func (c *mmdCursor) node(f *Flow) (string, error) {
	start := c.i
	for c.i < len(c.s) {
		r, size := utf8.DecodeRuneInString(c.s[c.i:])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		c.i += size
	}
	if c.i == start {
		return "", c.errorf("", "expected a node id (letters, digits, _), found %q", clip(c.rest()))
	}
	id := c.s[start:c.i]
	f.ensure(id, c.line)
	label, ok, err := c.shape(id)
	if err != nil {
		return "", err
	}
	if ok {
		f.setLabel(id, label, c.line)
	}
	if strings.HasPrefix(c.rest(), ":::") {
		c.i += 3
		for c.i < len(c.s) && (isASCIIAlnum(c.s[c.i]) || c.s[c.i] == '-') {
			c.i++
		}
	}
	return id, nil
}

// shape reads a bracketed label right after a node id, if there is one.
func (c *mmdCursor) shape(id string) (string, bool, error) {
	for _, sh := range mmdShapes {
		if !strings.HasPrefix(c.rest(), sh.open) {
			continue
		}
		c.i += len(sh.open)
		c.spaces()
		if !c.eof() && c.s[c.i] == '"' {
			label, err := c.quoted(id)
			if err != nil {
				return "", false, err
			}
			c.spaces()
			if !strings.HasPrefix(c.rest(), sh.close) {
				return "", false, c.errorf(id, "expected %q after the quoted label", sh.close)
			}
			c.i += len(sh.close)
			return label, true, nil
		}
		j := strings.Index(c.rest(), sh.close)
		if j < 0 {
			return "", false, c.errorf(id, "unterminated label: missing %q", sh.close)
		}
		label := strings.TrimSpace(c.rest()[:j])
		c.i += j + len(sh.close)
		return label, true, nil
	}
	return "", false, nil
}

// quoted reads a double-quoted string at the cursor.
func (c *mmdCursor) quoted(id string) (string, error) {
	s, n, ok := unquote(c.rest())
	if !ok {
		return "", c.errorf(id, "unterminated quoted label")
	}
	c.i += n
	return s, nil
}

// link reads an edge at the cursor and returns its label.
func (c *mmdCursor) link(from string) (string, bool, error) {
	if m := mmdLinks().plain.FindString(c.rest()); m != "" {
		c.i += len(m)
		c.spaces()
		if c.eof() || c.s[c.i] != '|' {
			return "", true, nil
		}
		j := strings.IndexByte(c.s[c.i+1:], '|')
		if j < 0 {
			return "", false, c.errorf(from, "unterminated edge label: missing closing |")
		}
		label := c.edgeLabel(c.s[c.i+1 : c.i+1+j])
		c.i += j + 2
		return label, true, nil
	}
	rest := c.rest()
	if len(rest) < 2 {
		return "", false, nil
	}
	closer, ok := mmdLinks().close[rest[:2]]
	if !ok {
		return "", false, nil
	}
	loc := closer.FindStringIndex(rest[2:])
	if loc == nil {
		return "", false, c.errorf(from, "unterminated edge label after %q: missing the closing arrow", rest[:2])
	}
	label := c.edgeLabel(rest[2 : 2+loc[0]])
	c.i += 2 + loc[1]
	return label, true, nil
}

// edgeLabel trims a raw edge label and removes quotes around it.
func (c *mmdCursor) edgeLabel(raw string) string {
	t := strings.TrimSpace(raw)
	if s, n, ok := unquote(t); ok && n == len(t) {
		return s
	}
	return t
}

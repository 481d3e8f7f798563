package agentspec

import (
	"errors"
	"fmt"
	"strings"
)

// expr is a condition of {% if %}: every value is a string, "" is false.
type expr interface {
	eval(vars map[string]string) (string, error)
}

type (
	varExpr  string
	litExpr  string
	notExpr  struct{ x expr }
	binaryOp struct {
		op   string // ==, !=, and, or
		l, r expr
	}
)

func (e varExpr) eval(vars map[string]string) (string, error) {
	v, ok := vars[string(e)]
	if !ok {
		return "", fmt.Errorf("%w %s", ErrUndefined, string(e))
	}
	return v, nil
}

func (e litExpr) eval(map[string]string) (string, error) { return string(e), nil }

func (e notExpr) eval(vars map[string]string) (string, error) {
	v, err := e.x.eval(vars)
	return truth(v == ""), err
}

func (e binaryOp) eval(vars map[string]string) (string, error) {
	l, err := e.l.eval(vars)
	if err != nil {
		return "", err
	}
	switch e.op {
	case "and":
		if l == "" {
			return "", nil
		}
		return e.r.eval(vars)
	case "or":
		if l != "" {
			return l, nil
		}
		return e.r.eval(vars)
	}
	r, err := e.r.eval(vars)
	if err != nil {
		return "", err
	}
	if e.op == "==" {
		return truth(l == r), nil
	}
	return truth(l != r), nil
}

func truth(b bool) string {
	if b {
		return "true"
	}
	return ""
}

// parseExpr parses or-expressions of and-expressions of (not) comparisons.
func parseExpr(s string) (expr, error) {
	toks, err := exprTokens(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, errors.New("empty condition")
	}
	p := &exprParser{toks: toks}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q", p.toks[p.i])
	}
	return e, nil
}

type exprParser struct {
	toks []string
	i    int
}

func (p *exprParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *exprParser) or() (expr, error) {
	l, err := p.and()
	for err == nil && p.peek() == "or" {
		p.i++
		var r expr
		if r, err = p.and(); err == nil {
			l = binaryOp{op: "or", l: l, r: r}
		}
	}
	return l, err
}

func (p *exprParser) and() (expr, error) {
	l, err := p.not()
	for err == nil && p.peek() == "and" {
		p.i++
		var r expr
		if r, err = p.not(); err == nil {
			l = binaryOp{op: "and", l: l, r: r}
		}
	}
	return l, err
}

func (p *exprParser) not() (expr, error) {
	if p.peek() == "not" {
		p.i++
		x, err := p.not()
		return notExpr{x: x}, err
	}
	return p.cmp()
}

func (p *exprParser) cmp() (expr, error) {
	l, err := p.primary()
	if err != nil {
		return nil, err
	}
	if op := p.peek(); op == "==" || op == "!=" {
		p.i++
		r, err := p.primary()
		if err != nil {
			return nil, err
		}
		return binaryOp{op: op, l: l, r: r}, nil
	}
	return l, nil
}

func (p *exprParser) primary() (expr, error) {
	t := p.peek()
	p.i++
	switch {
	case t == "":
		return nil, errors.New("the condition ends too early")
	case t == "(":
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, errors.New("missing )")
		}
		p.i++
		return e, nil
	case t[0] == '"' || t[0] == '\'':
		return litExpr(t[1 : len(t)-1]), nil
	case isIdent(t) && t != "and" && t != "or" && t != "not":
		return varExpr(t), nil
	}
	return nil, fmt.Errorf("unexpected %q", t)
}

// exprTokens splits a condition into names, quoted strings and operators.
func exprTokens(s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')':
			out = append(out, string(c))
			i++
		case strings.HasPrefix(s[i:], "==") || strings.HasPrefix(s[i:], "!="):
			out = append(out, s[i:i+2])
			i += 2
		case c == '"' || c == '\'':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, errors.New("unterminated string")
			}
			out = append(out, s[i:i+j+2])
			i += j + 2
		default:
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("unexpected %q", string(c))
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out, nil
}

package policy

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Shell patterns are globs on a command line:
//
//   - * matches any run of characters, spaces and slashes included; ? matches one
//     character; [abc], [a-z] and [!abc] match one character of a class; \ quotes the next
//     character. Everything else matches itself.
//   - The pattern must match the whole command (leading and trailing space ignored), so
//     "git *" matches "git status" but not "git" alone; "git:*" (Claude Code's spelling)
//     matches both.
//   - A command line is also split into the simple commands it runs: at ; & | && || and
//     newlines, and into $( ), backquotes and ( ) subshells, outside quotes. Leading
//     variable assignments (FOO=1) and the words ! { if then elif else do while until time
//     command builtin exec nohup env sudo are dropped from each simple command; the words
//     that open or close a compound command (for … in …, case, done, fi, esac) run nothing
//     and are skipped.
//   - A deny rule refuses the call when it matches the whole line or any simple command:
//     Shell(rm *) refuses "make && rm -rf build" and "FOO=1 sudo rm x".
//   - Allow rules let a call run only when every simple command matches one of them:
//     Shell(git *) allows "git add . && git commit -m x" but not "git status; curl x".

// DenyMatches reports whether a deny pattern matches the command line or any simple
// command in it.
func DenyMatches(pattern, command string) bool {
	re, err := compileGlob(pattern)
	if err != nil {
		return false
	}
	if re.MatchString(strings.TrimSpace(command)) {
		return true
	}
	for _, seg := range Segments(command) {
		if re.MatchString(seg.Raw) || re.MatchString(seg.Bare) {
			return true
		}
	}
	return false
}

// AllowMatches reports whether every simple command of the command line matches one of the
// allow patterns. A command line with no command in it (only spaces or comments) matches.
func AllowMatches(patterns []string, command string) bool {
	var res []*regexp.Regexp
	for _, p := range patterns {
		if re, err := compileGlob(p); err == nil {
			res = append(res, re)
		}
	}
	for _, seg := range Segments(command) {
		ok := false
		for _, re := range res {
			if re.MatchString(seg.Bare) || re.MatchString(seg.Raw) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// Segment is one simple command of a command line.
type Segment struct {
	// Raw is the command as written, trimmed.
	Raw string
	// Bare is Raw without leading assignments and wrapper words (sudo, env, exec, …).
	Bare string
}

// Segments splits a command line into its simple commands. It knows shell quoting well
// enough to find the separators a person would see; it is not a shell parser.
func Segments(command string) []Segment {
	var out []Segment
	var cur strings.Builder
	flush := func() {
		raw := strings.TrimSpace(cur.String())
		cur.Reset()
		if raw == "" || strings.HasPrefix(raw, "#") {
			return
		}
		b := bare(raw)
		if w, _ := firstWord(b); b == "" || closers[b] || openers[w] {
			return // control structure words run nothing themselves
		}
		out = append(out, Segment{Raw: raw, Bare: b})
	}
	var quote rune // ' or " while inside quotes
	// inner holds the substitutions opened inside double quotes ('(' for $( and '`'); when
	// one closes, the double quotes go on.
	var inner []rune
	rs := []rune(command)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			cur.WriteRune(r)
			if r == '\'' {
				quote = 0
			}
		case r == '\\' && i+1 < len(rs):
			cur.WriteRune(r)
			cur.WriteRune(rs[i+1])
			i++
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
				cur.WriteRune(r)
			case r == '`' || r == '$' && i+1 < len(rs) && rs[i+1] == '(':
				// Command substitution runs even inside double quotes.
				flush()
				quote = 0
				if r == '$' {
					i++
					r = '('
				}
				inner = append(inner, r)
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote = r
			cur.WriteRune(r)
		case len(inner) > 0 && (r == ')' && inner[len(inner)-1] == '(' || r == '`' && inner[len(inner)-1] == '`'):
			flush()
			inner = inner[:len(inner)-1]
			quote = '"'
		case r == ';' || r == '&' || r == '|' || r == '\n' || r == '(' || r == ')' || r == '`':
			flush()
		case r == '$' && i+1 < len(rs) && rs[i+1] == '(':
			flush()
			i++
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

// wrappers are words that run the rest of the line as a command.
var wrappers = map[string]bool{
	"!": true, "{": true, "}": true, "if": true, "then": true, "elif": true, "else": true, "do": true,
	"while": true, "until": true, "time": true, "command": true, "builtin": true, "exec": true,
	"nohup": true, "env": true, "sudo": true,
}

// closers end a compound command; openers start one whose first part runs nothing (its
// $( ) parts are segments of their own).
var (
	closers = map[string]bool{"done": true, "fi": true, "esac": true, "}": true}
	openers = map[string]bool{"for": true, "case": true, "select": true, "function": true}
)

var assignment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })

// bare drops leading assignments and wrapper words from a simple command.
func bare(raw string) string {
	s := raw
	for {
		word, rest := firstWord(s)
		if word == "" || !(wrappers[word] || assignment().MatchString(word)) {
			return s
		}
		s = rest
	}
}

// firstWord splits off the first space-separated word (an assignment's quoted value stays
// with it).
func firstWord(s string) (string, string) {
	s = strings.TrimLeft(s, " \t")
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ' || r == '\t':
			return s[:i], strings.TrimLeft(s[i:], " \t")
		}
	}
	return s, ""
}

var globCache sync.Map // pattern -> *regexp.Regexp

// compileGlob turns a Shell pattern into an anchored regular expression.
func compileGlob(pattern string) (*regexp.Regexp, error) {
	if re, ok := globCache.Load(pattern); ok {
		return re.(*regexp.Regexp), nil
	}
	p := strings.TrimSpace(pattern)
	suffixAny := false
	if strings.HasSuffix(p, ":*") {
		p, suffixAny = strings.TrimSuffix(p, ":*"), true
	}
	var b strings.Builder
	b.WriteString(`(?s)^`)
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '\\':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("pattern ends with a lone backslash")
			}
			i++
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		case '[':
			end := i + 1
			if end < len(rs) && (rs[end] == '!' || rs[end] == '^') {
				end++
			}
			if end < len(rs) && rs[end] == ']' {
				end++
			}
			for end < len(rs) && rs[end] != ']' {
				end++
			}
			if end >= len(rs) {
				return nil, fmt.Errorf("unclosed [ in pattern")
			}
			class := string(rs[i+1 : end])
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i = end
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	if suffixAny {
		b.WriteString(`(?:\s.*)?`)
	}
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("bad pattern: %w", err)
	}
	globCache.Store(pattern, re)
	return re, nil
}

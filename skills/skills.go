// Package skills finds the user's skills (NAME/SKILL.md folders and flat NAME.md files in
// Kimi CLI's, Claude's, Codex's and the agents' skill directories), lists them for the
// system prompt, and expands a prompt that starts with /skill:NAME or /flow:NAME. A flow
// skill's flowchart is parsed by ralph, which runs it.
package skills

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kimi-run/kimi-run/internal/infile"
	"github.com/kimi-run/kimi-run/ralph"
)

// FlowMoves is the move budget of a /flow: run.
const FlowMoves = 1000

// Type says how a skill can be used.
type Type string

// The skill types. Any skill can be used with /skill:NAME; only flow skills with /flow:NAME.
const (
	TypeStandard Type = "standard"
	TypeFlow     Type = "flow"
)

// The problems ExpandPrompt reports, wrapped in a *Error.
var (
	ErrUnknown = errors.New("no such skill")
	ErrInvalid = errors.New("invalid SKILL.md")
	ErrNotFlow = errors.New("skill is not a flow (its front matter lacks type: flow)")
)

// Error is a failure to use the skill Name. Err is one of the Err* problems above, a
// flow's *ParseError or *ValidationError, or an I/O error.
type Error struct {
	Name string
	Err  error
}

// Error formats the error as `skill "name": problem`.
func (e *Error) Error() string { return fmt.Sprintf("skill %q: %v", e.Name, e.Err) }

// Unwrap returns the problem.
func (e *Error) Unwrap() error { return e.Err }

// Skill is one skill: a NAME/SKILL.md folder or a flat NAME.md file.
type Skill struct {
	Name        string
	Description string
	Type        Type
	Scope       Scope
	// File is the skill's file, absolute; Path is the same relative to the work dir when
	// it lies inside it, for messages.
	File string
	Path string
	// Text is the whole file and Body the part after the front matter.
	Text string
	Body string
}

// validSkillName reports whether name may follow /skill: or /flow:: letters, digits, "_"
// and "-". A loop rather than a regexp, so start-up compiles nothing.
func validSkillName(name string) bool {
	for _, r := range name {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return name != ""
}

// readSkill reads and splits the skill file; dirName names it when its front matter
// does not, and display is how messages show its path.
func readSkill(file, dirName, display string) (*Skill, error) {
	// A regular file only, so reading it never waits (see infile.Skill).
	b, err := infile.Read(context.Background(), file, infile.Skill)
	if err != nil {
		return nil, err
	}
	text := strings.TrimPrefix(string(b), "\ufeff")
	meta, body, err := frontMatter(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", display, ErrInvalid, err)
	}
	var fields [3]string
	for i, key := range []string{"name", "description", "type"} {
		if fields[i], err = metaString(meta, key); err != nil {
			return nil, fmt.Errorf("%s: %w: %w", display, ErrInvalid, err)
		}
	}
	s := &Skill{
		Name:        fields[0],
		Description: fields[1],
		Type:        Type(fields[2]),
		File:        file,
		Path:        display,
		Text:        text,
		Body:        strings.TrimSpace(body),
	}
	if s.Name == "" {
		s.Name = dirName
	}
	if s.Description == "" {
		s.Description = firstLine(s.Body)
	}
	switch s.Type {
	case "":
		s.Type = TypeStandard
	case TypeStandard, TypeFlow:
	default:
		return nil, fmt.Errorf("%s: %w: type %q is neither standard nor flow", display, ErrInvalid, s.Type)
	}
	return s, nil
}

// Flow parses the skill's first ```mermaid or ```d2 block. Line numbers count from the top
// of SKILL.md.
func (s *Skill) Flow() (*ralph.Flow, error) {
	return ralph.ParseMarkdown(filepath.ToSlash(s.Path), []byte(s.Text))
}

// Expansion is a prompt after skill commands are resolved.
type Expansion struct {
	// Prompt is the text to run as one turn; empty when Flow is set.
	Prompt string
	// Flow, when set, is to be run with Runner.Run and MaxMoves as its budget, and Request
	// (the text after `/flow:NAME`, possibly empty) as Options.Request.
	Flow     *ralph.Flow
	MaxMoves int
	Request  string
	// Skill names the skill used, or is empty for a plain prompt.
	Skill string
}

// ExpandPrompt resolves a prompt that starts with /skill:NAME or /flow:NAME against
// skills. `/skill:NAME request` becomes the whole skill file followed by the request;
// `/flow:NAME request` becomes the skill's flow, with a budget of FlowMoves and the request
// to show at every node. Any other
// prompt comes back unchanged. Errors are *Error.
func ExpandPrompt(skills *Set, prompt string) (Expansion, error) {
	p := strings.TrimSpace(prompt)
	cmd, name, args, ok := skillCommand(p)
	if !ok {
		return Expansion{Prompt: prompt}, nil
	}
	s, err := skills.Lookup(name)
	if err != nil {
		return Expansion{}, err
	}
	if cmd == "flow" {
		if s.Type != TypeFlow {
			return Expansion{}, &Error{Name: name, Err: ErrNotFlow}
		}
		f, err := s.Flow()
		if err != nil {
			return Expansion{}, &Error{Name: name, Err: err}
		}
		return Expansion{Flow: f, MaxMoves: FlowMoves, Skill: s.Name, Request: args}, nil
	}
	// As Kimi CLI sends a skill: the whole SKILL.md, front matter included, then the
	// request under "User request:" (KimiSoul._make_skill_runner).
	text := strings.TrimSpace(s.Text)
	if text == "" {
		return Expansion{}, &Error{Name: name, Err: fmt.Errorf("%w: empty file", ErrInvalid)}
	}
	if request := strings.TrimSpace(args); request != "" {
		text += "\n\nUser request:\n" + request
	}
	return Expansion{Prompt: text, Skill: s.Name}, nil
}

// skillCommand splits `/skill:NAME args` or `/flow:NAME args`. The name runs to the first
// whitespace; it is checked later, so a malformed name reports an unknown skill.
func skillCommand(p string) (cmd, name, args string, ok bool) {
	for _, c := range []string{"skill", "flow"} {
		if rest, found := strings.CutPrefix(p, "/"+c+":"); found {
			i := strings.IndexAny(rest, " \t\r\n")
			if i < 0 {
				return c, rest, "", true
			}
			return c, rest[:i], strings.TrimSpace(rest[i:]), true
		}
	}
	return "", "", "", false
}

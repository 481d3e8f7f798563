package ralph

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kimi-run/kimi-run/internal/infile"
)

// FlowMoves is the move budget of a /flow: run.
const FlowMoves = 1000

// SkillType says how a skill can be used.
type SkillType string

// The skill types. Any skill can be used with /skill:NAME; only flow skills with /flow:NAME.
const (
	SkillStandard SkillType = "standard"
	SkillFlow     SkillType = "flow"
)

// The problems ExpandPrompt reports, wrapped in a *SkillError.
var (
	ErrUnknownSkill = errors.New("no such skill")
	ErrInvalidSkill = errors.New("invalid SKILL.md")
	ErrNotFlow      = errors.New("skill is not a flow (its front matter lacks type: flow)")
)

// SkillError is a failure to use the skill Name. Err is one of the Err* problems above, a
// flow's *ParseError or *ValidationError, or an I/O error.
type SkillError struct {
	Name string
	Err  error
}

// Error formats the error as `skill "name": problem`.
func (e *SkillError) Error() string { return fmt.Sprintf("skill %q: %v", e.Name, e.Err) }

// Unwrap returns the problem.
func (e *SkillError) Unwrap() error { return e.Err }

// Skill is one skill: a NAME/SKILL.md folder or a flat NAME.md file.
type Skill struct {
	Name        string
	Description string
	Type        SkillType
	Scope       SkillScope
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
		return nil, fmt.Errorf("%s: %w: %w", display, ErrInvalidSkill, err)
	}
	var fields [3]string
	for i, key := range []string{"name", "description", "type"} {
		if fields[i], err = metaString(meta, key); err != nil {
			return nil, fmt.Errorf("%s: %w: %w", display, ErrInvalidSkill, err)
		}
	}
	s := &Skill{
		Name:        fields[0],
		Description: fields[1],
		Type:        SkillType(fields[2]),
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
		s.Type = SkillStandard
	case SkillStandard, SkillFlow:
	default:
		return nil, fmt.Errorf("%s: %w: type %q is neither standard nor flow", display, ErrInvalidSkill, s.Type)
	}
	return s, nil
}

// Flow parses the skill's first ```mermaid or ```d2 block. Line numbers count from the top
// of SKILL.md.
func (s *Skill) Flow() (*Flow, error) {
	return ParseMarkdown(filepath.ToSlash(s.Path), []byte(s.Text))
}

// Expansion is a prompt after skill commands are resolved.
type Expansion struct {
	// Prompt is the text to run as one turn; empty when Flow is set.
	Prompt string
	// Flow, when set, is to be run with Runner.Run and MaxMoves as its budget, and Request
	// (the text after `/flow:NAME`, possibly empty) as Options.Request.
	Flow     *Flow
	MaxMoves int
	Request  string
	// Skill names the skill used, or is empty for a plain prompt.
	Skill string
}

// ExpandPrompt resolves a prompt that starts with /skill:NAME or /flow:NAME against
// skills. `/skill:NAME request` becomes the whole skill file followed by the request;
// `/flow:NAME request` becomes the skill's flow, with a budget of FlowMoves and the request
// to show at every node. Any other
// prompt comes back unchanged. Errors are *SkillError.
func ExpandPrompt(skills *Skills, prompt string) (Expansion, error) {
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
		if s.Type != SkillFlow {
			return Expansion{}, &SkillError{Name: name, Err: ErrNotFlow}
		}
		f, err := s.Flow()
		if err != nil {
			return Expansion{}, &SkillError{Name: name, Err: err}
		}
		return Expansion{Flow: f, MaxMoves: FlowMoves, Skill: s.Name, Request: args}, nil
	}
	// As Kimi CLI sends a skill: the whole SKILL.md, front matter included, then the
	// request under "User request:" (KimiSoul._make_skill_runner).
	text := strings.TrimSpace(s.Text)
	if text == "" {
		return Expansion{}, &SkillError{Name: name, Err: fmt.Errorf("%w: empty file", ErrInvalidSkill)}
	}
	if request := strings.TrimSpace(args); request != "" {
		text += "\n\nUser request:\n" + request
	}
	return Expansion{Prompt: text, Skill: s.Name}, nil
}

// WithRequest adds the user's request to a skill's body or a flow node's prompt; an empty
// request leaves the prompt as it is.
func WithRequest(prompt, request string) string {
	request = strings.TrimSpace(request)
	if request == "" {
		return prompt
	}
	return prompt + "\n\nThe user's request:\n" + request
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

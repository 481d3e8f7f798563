// Package agentspec reads agent files: Kimi CLI's agent YAML (version 1), which names an
// agent's system prompt template and its arguments, its tools and its subagents, and may
// extend another agent file or one of the built-in agents (default, okabe). It also holds
// kimi-run's built-in agents and renders system prompt templates.
package agentspec

import (
	"embed"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

//go:embed builtin
var builtinFS embed.FS

// Builtins are the names of the built-in agents (--agent NAME, extend: NAME).
var Builtins = []string{"default", "okabe"}

// maxExtendDepth stops a chain of agent files that extend one another in a circle.
const maxExtendDepth = 16

// Spec is an agent as its file describes it, with the files it extends merged in.
type Spec struct {
	Name string
	// File is where the agent was read from ("builtin:default/agent.yaml" for ours).
	File string
	// PromptArgs are the template variables the file defines (system_prompt_args).
	PromptArgs map[string]string
	// Tools lists the agent's tools by canonical name (tools.CanonicalName).
	Tools []string
	// AllowedTools, when not nil, replaces Tools (Kimi CLI uses it for subagents).
	AllowedTools []string
	// ExcludeTools are left out of Tools (or AllowedTools).
	ExcludeTools []string
	// Subagents are the kinds of subagent the agent may start, by name.
	Subagents []Subagent
	// WhenToUse tells a parent agent when to pick this agent as a subagent.
	WhenToUse string
	// Warnings are what the file asks for that kimi-run does not do; the run reports them.
	Warnings []string

	prompt loc
}

// Subagent is one kind of subagent an agent file names.
type Subagent struct {
	Name        string
	Description string
	Spec        *Spec

	file loc
}

// ToolNames returns the agent's tools: AllowedTools if set, else Tools, less ExcludeTools.
func (s *Spec) ToolNames() []string {
	names := s.Tools
	if s.AllowedTools != nil {
		names = s.AllowedTools
	}
	var out []string
	for _, n := range names {
		if !slices.Contains(s.ExcludeTools, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// PromptFile is the system prompt template's location, for messages.
func (s *Spec) PromptFile() string { return s.prompt.String() }

// SystemPrompt renders the agent's system prompt template with builtin (the KIMI_*
// variables) and the file's arguments, which win over builtin on a clash, as in Kimi CLI.
func (s *Spec) SystemPrompt(builtin map[string]string) (string, error) {
	vars := make(map[string]string, len(builtin)+len(s.PromptArgs))
	for k, v := range builtin {
		vars[k] = v
	}
	for k, v := range s.PromptArgs {
		vars[k] = v
	}
	text, err := s.prompt.read()
	if err != nil {
		return "", fmt.Errorf("system prompt: %w", err)
	}
	dir := s.prompt.dir()
	load := func(name string) (string, string, error) {
		l := dir.join(name)
		b, err := l.read()
		return string(b), l.String(), err
	}
	return Render(strings.TrimSpace(string(text)), s.prompt.String(), vars, load)
}

// Builtin returns the built-in agent name ("default" or "okabe").
func Builtin(name string) (*Spec, error) {
	if !slices.Contains(Builtins, name) {
		return nil, fmt.Errorf("no built-in agent %q (the built-in agents are %s)", name, strings.Join(Builtins, ", "))
	}
	return load(loc{builtin: true, path: "builtin/" + name + "/agent.yaml"})
}

// Load reads the agent file at path and everything it extends.
func Load(file string) (*Spec, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("agent file %s: %w", file, err)
	}
	return load(loc{path: abs})
}

func load(l loc) (*Spec, error) {
	r, err := resolve(l, 0)
	if err != nil {
		return nil, err
	}
	s := &r.Spec
	for _, need := range []string{"name", "system_prompt_path", "tools"} {
		if !r.set[need] {
			return nil, fmt.Errorf("agent file %s: agent.%s is required (or extend an agent that has it)", l, need)
		}
	}
	for i := range s.Subagents {
		sub := &s.Subagents[i]
		sr, err := resolve(sub.file, 0)
		if err != nil {
			return nil, fmt.Errorf("subagent %s: %w", sub.Name, err)
		}
		for _, need := range []string{"system_prompt_path", "tools"} {
			if !sr.set[need] {
				return nil, fmt.Errorf("subagent %s: agent file %s: agent.%s is required", sub.Name, sub.file, need)
			}
		}
		if sr.Name == "" {
			sr.Name = sub.Name
		}
		sr.Subagents = nil // subagents do not start subagents
		sr.Tools, sr.AllowedTools = withoutRootOnly(sr.Tools), withoutRootOnly(sr.AllowedTools)
		sub.Spec = &sr.Spec
		s.Warnings = append(s.Warnings, sr.Warnings...)
	}
	return s, nil
}

// raw is a Spec while it is resolved, with the fields its file set.
type raw struct {
	Spec
	set map[string]bool
}

// resolve reads l and merges it onto what it extends: the fields l sets replace the
// base's, and system_prompt_args are merged key by key.
func resolve(l loc, depth int) (*raw, error) {
	if depth > maxExtendDepth {
		return nil, fmt.Errorf("agent file %s: extends nest too deep (a cycle?)", l)
	}
	r, extend, err := parseFile(l)
	if err != nil {
		return nil, err
	}
	if extend == "" {
		return r, nil
	}
	var baseLoc loc
	if slices.Contains(Builtins, extend) {
		baseLoc = loc{builtin: true, path: "builtin/" + extend + "/agent.yaml"}
	} else {
		baseLoc = l.dir().join(extend)
	}
	base, err := resolve(baseLoc, depth+1)
	if err != nil {
		return nil, fmt.Errorf("%s extends %s: %w", l, extend, err)
	}
	for k := range r.set {
		base.set[k] = true
		switch k {
		case "name":
			base.Name = r.Name
		case "system_prompt_path":
			base.prompt = r.prompt
		case "system_prompt_args":
			for ak, av := range r.PromptArgs {
				base.PromptArgs[ak] = av
			}
		case "tools":
			base.Tools = r.Tools
		case "allowed_tools":
			base.AllowedTools = r.AllowedTools
		case "exclude_tools":
			base.ExcludeTools = r.ExcludeTools
		case "subagents":
			base.Subagents = r.Subagents
		case "when_to_use":
			base.WhenToUse = r.WhenToUse
		}
	}
	base.File = r.File
	base.Warnings = append(base.Warnings, r.Warnings...)
	return base, nil
}

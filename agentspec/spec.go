// Package agentspec reads agent files: Kimi CLI's agent YAML (version 1), which names an
// agent's system prompt template and its arguments, its tools and its subagents, and may
// extend another agent file or one of the built-in agents (default, okabe). It also holds
// kimi-run's built-in agents and renders system prompt templates.
package agentspec

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"

	"github.com/kimi-run/kimi-run/tools"
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
		if !contains(s.ExcludeTools, n) && !contains(out, n) {
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
	if !contains(Builtins, name) {
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
	if contains(Builtins, extend) {
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

// knownFields are the keys of `agent:` that kimi-run reads or knowingly passes over.
var knownFields = []string{"extend", "name", "system_prompt_path", "system_prompt_args", "tools",
	"allowed_tools", "exclude_tools", "subagents", "when_to_use", "model"}

// parseFile reads one agent file without following extend, which it returns.
func parseFile(l loc) (*raw, string, error) {
	doc, err := readDoc(l)
	if err != nil {
		return nil, "", err
	}
	r := &raw{Spec: Spec{File: l.String(), PromptArgs: map[string]string{}}, set: map[string]bool{}}
	fail := func(format string, a ...any) (*raw, string, error) {
		return nil, "", fmt.Errorf("agent file %s: %s", l, fmt.Sprintf(format, a...))
	}
	if v, ok := doc["version"]; ok && fmt.Sprint(v) != "1" {
		return fail("version %v is not supported (only version 1)", v)
	}
	for k := range doc {
		if k != "version" && k != "agent" {
			r.Warnings = append(r.Warnings, fmt.Sprintf("agent file %s: unknown key %q is ignored", l, k))
		}
	}
	a, ok := doc["agent"].(map[string]any)
	if !ok {
		if doc["agent"] == nil {
			return fail("no agent: section")
		}
		return fail("agent: must be a mapping")
	}
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var extend string
	for _, k := range keys {
		v := a[k]
		if !contains(knownFields, k) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("agent file %s: unknown field agent.%s is ignored", l, k))
			continue
		}
		switch k {
		case "extend":
			s, ok := v.(string)
			if !ok {
				return fail("agent.extend must be a string")
			}
			extend = strings.TrimSpace(s)
			continue
		case "name", "when_to_use":
			s, ok := scalar(v)
			if !ok {
				return fail("agent.%s must be a string", k)
			}
			if k == "name" {
				r.Name = s
			} else {
				r.WhenToUse = s
			}
		case "model":
			if v != nil {
				r.Warnings = append(r.Warnings, fmt.Sprintf("agent file %s: agent.model is ignored; choose the model with --model", l))
			}
			continue
		case "system_prompt_path":
			s, ok := v.(string)
			if !ok || strings.TrimSpace(s) == "" {
				return fail("agent.system_prompt_path must be a file name")
			}
			r.prompt = l.dir().join(s)
		case "system_prompt_args":
			if v == nil {
				continue
			}
			m, ok := v.(map[string]any)
			if !ok {
				return fail("agent.system_prompt_args must be a mapping of names to strings")
			}
			for ak, av := range m {
				s, ok := scalar(av)
				if !ok {
					return fail("agent.system_prompt_args.%s must be a string", ak)
				}
				r.PromptArgs[ak] = s
			}
		case "tools", "allowed_tools", "exclude_tools":
			list, err := toolList(v)
			if err != nil {
				return fail("agent.%s %v", k, err)
			}
			switch k {
			case "tools":
				r.Tools = orEmpty(list)
			case "allowed_tools":
				r.AllowedTools = list // null: no restriction
			default:
				r.ExcludeTools = list
			}
		case "subagents":
			subs, err := subagents(l, v)
			if err != nil {
				return fail("%v", err)
			}
			r.Subagents = subs
		}
		r.set[k] = true
	}
	return r, extend, nil
}

// builtinDocs keeps the decoded built-in files: every subagent of the default agent extends
// it again, and decoding YAML is most of the start-up cost of an agent. The documents are
// only read, never changed.
var builtinDocs sync.Map // path -> map[string]any

// readDoc reads and decodes the YAML file l.
func readDoc(l loc) (map[string]any, error) {
	if l.builtin {
		if doc, ok := builtinDocs.Load(l.path); ok {
			return doc.(map[string]any), nil
		}
	}
	data, err := l.read()
	if err != nil {
		return nil, fmt.Errorf("agent file %s: %w", l, err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("agent file %s: invalid YAML: %s", l, oneLine(err.Error()))
	}
	if l.builtin {
		builtinDocs.Store(l.path, doc)
	}
	return doc, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// toolList reads a list of tool names, canonical; null is nil.
func toolList(v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	items, ok := v.([]any)
	if !ok {
		return nil, errors.New("must be a list of tool names")
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return nil, fmt.Errorf("holds %v, which is not a tool name", it)
		}
		out = append(out, tools.CanonicalName(s))
	}
	return out, nil
}

// subagents reads `subagents: {NAME: {path, description}}`; load reads their files.
func subagents(l loc, v any) ([]Subagent, error) {
	if v == nil {
		return []Subagent{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("agent.subagents must be a mapping of names to {path, description}")
	}
	out := make([]Subagent, 0, len(m))
	for name, sv := range m {
		e, ok := sv.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("agent.subagents.%s must be a mapping with path and description", name)
		}
		p, _ := e["path"].(string)
		if strings.TrimSpace(p) == "" {
			return nil, fmt.Errorf("agent.subagents.%s.path is required", name)
		}
		desc, _ := scalar(e["description"])
		out = append(out, Subagent{Name: name, Description: desc, file: l.dir().join(p)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// scalar returns a YAML scalar as text: a prompt argument of 3 or true is meant as text.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case bool, int, int64, uint64, float64:
		return fmt.Sprint(x), true
	}
	return "", false
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// loc is a file: in the embedded built-in agents, or on disk.
type loc struct {
	builtin bool
	path    string // slash path in builtinFS, or an absolute OS path
}

func (l loc) String() string {
	if l.builtin {
		return "builtin:" + strings.TrimPrefix(l.path, "builtin/")
	}
	return l.path
}

func (l loc) read() ([]byte, error) {
	if l.builtin {
		return builtinFS.ReadFile(l.path)
	}
	return os.ReadFile(l.path)
}

// dir is the directory of l, as a loc to join names to.
func (l loc) dir() loc {
	if l.builtin {
		return loc{builtin: true, path: path.Dir(l.path)}
	}
	return loc{path: filepath.Dir(l.path)}
}

// join resolves name against the directory l. Built-in agents only refer to one another.
func (l loc) join(name string) loc {
	if l.builtin {
		return loc{builtin: true, path: path.Clean(path.Join(l.path, name))}
	}
	if filepath.IsAbs(name) {
		return loc{path: filepath.Clean(name)}
	}
	return loc{path: filepath.Join(l.path, name)}
}

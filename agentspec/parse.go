package agentspec

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"

	"github.com/kimi-run/kimi-run/tools"
)

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
		if !slices.Contains(knownFields, k) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("agent file %s: unknown field agent.%s is ignored", l, k))
			continue
		}
		if k == "extend" {
			s, ok := v.(string)
			if !ok {
				return fail("agent.extend must be a string")
			}
			extend = strings.TrimSpace(s)
			continue
		}
		set, err := r.field(l, k, v)
		if err != nil {
			return fail("%v", err)
		}
		if set {
			r.set[k] = true
		}
	}
	return r, extend, nil
}

// field reads the known field k of l's agent: section (any but extend) into r, and says
// whether the file sets it (a null system_prompt_args and a model do not).
func (r *raw) field(l loc, k string, v any) (set bool, err error) {
	switch k {
	case "name", "when_to_use":
		s, ok := scalar(v)
		if !ok {
			return false, fmt.Errorf("agent.%s must be a string", k)
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
		return false, nil
	case "system_prompt_path":
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return false, errors.New("agent.system_prompt_path must be a file name")
		}
		r.prompt = l.dir().join(s)
	case "system_prompt_args":
		if v == nil {
			return false, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return false, errors.New("agent.system_prompt_args must be a mapping of names to strings")
		}
		for ak, av := range m {
			s, ok := scalar(av)
			if !ok {
				return false, fmt.Errorf("agent.system_prompt_args.%s must be a string", ak)
			}
			r.PromptArgs[ak] = s
		}
	case "tools", "allowed_tools", "exclude_tools":
		list, err := toolList(l, v)
		if err != nil {
			return false, fmt.Errorf("agent.%s %v", k, err)
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
			return false, err
		}
		r.Subagents = subs
	}
	return true, nil
}

// builtinDocs keeps the built-in files decoded, once per process: every subagent of the
// default agent extends it again. The documents are only read, never changed. A run decodes
// them at start, so they write long texts as quoted strings: go-yaml scans a block scalar
// (|) slowly: longer than all the rest of the files together (TestBuiltinFilesQuoteTexts).
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

// toolList reads a list of tool names, canonical; null is nil. In the built-in files an
// "@SET" entry stands for a set of built-in tools (toolSets).
func toolList(l loc, v any) ([]string, error) {
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
		if set, ok := toolSets[s]; ok && l.builtin {
			out = append(out, builtinTools(set)...)
			continue
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

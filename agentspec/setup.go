package agentspec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/policy"
)

// Setup is the agent a run uses, with its prompts rendered.
type Setup struct {
	Spec *Spec
	// Tools are the root agent's tool names; DMail says SendDMail is among them.
	Tools []string
	DMail bool
	// Prompt is the root's system prompt; SubPrompts those of its subagents, by name.
	Prompt     string
	SubPrompts map[string]string
}

// Setup renders the prompts of the agent and its subagents with vars; dmail (--dmail) gives
// the root SendDMail.
func (s *Spec) Setup(dmail bool, vars map[string]string) (*Setup, error) {
	var err error
	a := &Setup{Spec: s, Tools: s.ToolNames(), SubPrompts: map[string]string{}}
	if dmail && !slices.Contains(a.Tools, "SendDMail") {
		a.Tools = append(a.Tools, "SendDMail")
	}
	a.DMail = slices.Contains(a.Tools, "SendDMail")
	if a.Prompt, err = s.SystemPrompt(vars); err != nil {
		return nil, fmt.Errorf("system prompt: %w", err)
	}
	for _, sub := range s.Subagents {
		p, err := sub.Spec.SystemPrompt(vars)
		if err != nil {
			return nil, fmt.Errorf("system prompt of subagent %s: %w", sub.Name, err)
		}
		a.SubPrompts[sub.Name] = p
	}
	return a, nil
}

// SubagentTypes are the subagents as the Agent tool lists them.
func (a *Setup) SubagentTypes() []tools.SubagentType {
	out := make([]tools.SubagentType, len(a.Spec.Subagents))
	for i, sub := range a.Spec.Subagents {
		desc := sub.Description
		if w := strings.Join(strings.Fields(sub.Spec.WhenToUse), " "); w != "" {
			desc += " When to use: " + w
		}
		out[i] = tools.SubagentType{Name: sub.Name, Description: desc}
	}
	return out
}

// RootTools picks the root agent's tools from all the tools there are, and says what the
// agent file asked for that is not there.
func (a *Setup) RootTools(all []tools.Tool) ([]tools.Tool, []string) {
	kept, missing := filterTools(all, a.Tools)
	var warnings []string
	if slices.Contains(missing, "Agent") && len(a.Spec.Subagents) == 0 {
		missing = slices.DeleteFunc(missing, func(n string) bool { return n == "Agent" })
		warnings = append(warnings, fmt.Sprintf("agent %s: the Agent tool is left out because the agent has no subagents", a.Spec.File))
	}
	if len(missing) > 0 {
		warnings = append(warnings, fmt.Sprintf("agent %s: tools that kimi-run does not have are left out: %s", a.Spec.File, strings.Join(missing, ", ")))
	}
	return kept, warnings
}

// SubagentTools picks each subagent's tools, by name, from all the tools there are: the
// tools its own file names (never Agent or SendDMail: a subagent's list leaves the root's
// own tools out). As in Kimi CLI, a subagent is an agent of its own: what the root's file
// excludes does not bind it.
func (a *Setup) SubagentTools(all []tools.Tool) (map[string][]tools.Tool, []string) {
	out := make(map[string][]tools.Tool, len(a.Spec.Subagents))
	var warnings []string
	for _, sub := range a.Spec.Subagents {
		kept, missing := filterTools(all, sub.Spec.ToolNames())
		if len(missing) > 0 {
			warnings = append(warnings, fmt.Sprintf("subagent %s: tools that kimi-run does not have are left out: %s", sub.Name, strings.Join(missing, ", ")))
		}
		out[sub.Name] = kept
	}
	return out, warnings
}

// filterTools keeps the tools of ts that an agent file's tool list names, in the order of
// ts, and returns the names no tool has, sorted. It goes through tools/policy, the one
// place tool rules are kept, so names compare as everywhere else (Task is Agent;
// module:Class names are their class).
func filterTools(ts []tools.Tool, names []string) (kept []tools.Tool, missing []string) {
	canonical := make([]string, 0, len(names))
	for _, n := range names {
		canonical = append(canonical, tools.CanonicalName(n))
	}
	p := policy.Policy{Only: canonical, Source: "the agent file"}
	have := make([]string, len(ts))
	for i, t := range ts {
		have[i] = t.Name()
	}
	missing = p.Unknown(have)
	slices.Sort(missing)
	// A built-in the run does not offer (ReadMediaFile for a model without image_in or
	// video_in, SearchWeb without a search service) is left out quietly, as Kimi CLI skips
	// it; Agent's absence has a warning of its own.
	builtin := builtinTools(func(tools.Facts) bool { return true })
	missing = slices.DeleteFunc(missing, func(n string) bool { return n != "Agent" && slices.Contains(builtin, n) })
	return p.Apply(ts, nil), slices.Compact(missing)
}

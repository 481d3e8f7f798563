package run

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/agentspec"
	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/policy"
)

// agentSetup is the agent a run uses, from --agent or --agent-file, with its prompts
// rendered: a prompt that does not render is a usage error before any model call.
type agentSetup struct {
	spec *agentspec.Spec
	// tools are the root agent's tool names; dmail says SendDMail is among them.
	tools []string
	dmail bool
	// prompt is the root's system prompt; subPrompts those of its subagents, by name.
	prompt     string
	subPrompts map[string]string
}

// loadAgent renders the prompts of the run's agent (config.Resolve loaded it) with vars;
// dmail (--dmail) gives the root SendDMail.
func loadAgent(spec *agentspec.Spec, dmail bool, vars map[string]string) (*agentSetup, error) {
	var err error
	s := &agentSetup{spec: spec, tools: spec.ToolNames(), subPrompts: map[string]string{}}
	if dmail && !slices.Contains(s.tools, "SendDMail") {
		s.tools = append(s.tools, "SendDMail")
	}
	s.dmail = slices.Contains(s.tools, "SendDMail")
	if s.prompt, err = spec.SystemPrompt(vars); err != nil {
		return nil, usagef("system prompt: %w", err)
	}
	for _, sub := range spec.Subagents {
		p, err := sub.Spec.SystemPrompt(vars)
		if err != nil {
			return nil, usagef("system prompt of subagent %s: %w", sub.Name, err)
		}
		s.subPrompts[sub.Name] = p
	}
	return s, nil
}

// subagentTypes are the subagents as the Agent tool lists them.
func (s *agentSetup) subagentTypes() []tools.SubagentType {
	out := make([]tools.SubagentType, len(s.spec.Subagents))
	for i, sub := range s.spec.Subagents {
		desc := sub.Description
		if w := strings.Join(strings.Fields(sub.Spec.WhenToUse), " "); w != "" {
			desc += " When to use: " + w
		}
		out[i] = tools.SubagentType{Name: sub.Name, Description: desc}
	}
	return out
}

// rootTools picks the root agent's tools from all the tools there are, and says what the
// agent file asked for that is not there.
func (s *agentSetup) rootTools(all []tools.Tool) ([]tools.Tool, []string) {
	kept, missing := filterTools(all, s.tools)
	var warnings []string
	if slices.Contains(missing, "Agent") && len(s.spec.Subagents) == 0 {
		missing = dropName(missing, "Agent")
		warnings = append(warnings, fmt.Sprintf("agent %s: the Agent tool is left out because the agent has no subagents", s.spec.File))
	}
	if len(missing) > 0 {
		warnings = append(warnings, fmt.Sprintf("agent %s: tools that kimi-run does not have are left out: %s", s.spec.File, strings.Join(missing, ", ")))
	}
	return kept, warnings
}

// subagentKinds builds the subagents of the agent file from all the tools there are: each
// gets the tools its own file names (never Agent or SendDMail: agentspec leaves the root's
// own tools out of a subagent's list). As in Kimi CLI, a subagent is an agent of its own:
// what the root's file excludes does not bind it.
func (s *agentSetup) subagentKinds(all []tools.Tool) (map[string]agent.SubagentKind, []string) {
	kinds := make(map[string]agent.SubagentKind, len(s.spec.Subagents))
	var warnings []string
	for _, sub := range s.spec.Subagents {
		kept, missing := filterTools(all, sub.Spec.ToolNames())
		if len(missing) > 0 {
			warnings = append(warnings, fmt.Sprintf("subagent %s: tools that kimi-run does not have are left out: %s", sub.Name, strings.Join(missing, ", ")))
		}
		kinds[sub.Name] = agent.SubagentKind{Tools: kept, SystemPrompt: s.subPrompts[sub.Name]}
	}
	return kinds, warnings
}

// filterTools keeps the tools of ts that an agent file's tool list names, in the order of
// ts, and returns the names no tool has. It goes through tools/policy, the one place tool
// rules are kept, so names compare as everywhere else (Task is Agent; module:Class names
// are their class).
func filterTools(ts []tools.Tool, names []string) (kept []tools.Tool, missing []string) {
	canonical := make([]string, 0, len(names))
	for _, n := range names {
		canonical = append(canonical, tools.CanonicalName(n))
	}
	p := policy.Policy{Only: canonical, Source: "the agent file"}
	missing = p.Unknown(toolNames(ts))
	sort.Strings(missing)
	// A built-in the run does not offer (ReadMediaFile for a model without image_in or
	// video_in, SearchWeb without a search service) is left out quietly, as Kimi CLI skips
	// it; Agent's absence has a warning of its own.
	missing = slices.DeleteFunc(missing, func(n string) bool { return n != "Agent" && slices.Contains(builtinNames(), n) })
	return p.Apply(ts, nil), dedupe(missing)
}

// builtinNames are the names of every built-in tool, offered in this run or not.
var builtinNames = sync.OnceValue(func() []string { return toolNames(tools.AllBuiltins()) })

// dedupe drops repeated names from a sorted list.
func dedupe(sorted []string) []string {
	var out []string
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

func dropName(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

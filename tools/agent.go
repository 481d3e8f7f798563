package tools

import (
	"context"
	"fmt"
	"strings"
)

// SubagentType is one kind of subagent the Agent tool may start, as the model sees it.
type SubagentType struct {
	Name        string
	Description string
}

type agentArgs struct {
	Description  string `json:"description" description:"A short title for the task (3-8 words), shown in progress output."`
	Prompt       string `json:"prompt" description:"The complete instructions for the subagent. It starts with an empty context: include every file path, fact and constraint it needs, and say what its final answer must contain."`
	SubagentType string `json:"subagent_type,omitempty" description:"Which kind of subagent to start (default coder); the kinds are listed in the tool description."`
}

// NewAgent returns the Agent tool, which hands a self-contained piece of work to a
// subagent with a fresh context and returns its final answer. env.SubagentTypes are
// listed in its description.
func NewAgent(env Env) Tool {
	return New("Agent", agentDescription(env.SubagentTypes), Facts{RootOnly: true},
		func(ctx context.Context, a agentArgs) (Result, error) {
			if strings.TrimSpace(a.Prompt) == "" {
				return Errorf("prompt is empty: tell the subagent what to do").WithKimi(kimiAgentFailed("prompt is empty"), ""), nil
			}
			answer, err := env.Subagent.RunSubagent(ctx, a.Description, a.Prompt, a.SubagentType)
			switch {
			case err != nil && ctx.Err() != nil:
				return Errorf("task %q was cancelled", a.Description), nil
			case err != nil && answer != "":
				return Errorf("task %q did not finish: %v\nIts last message:\n%s", a.Description, err, answer).
					WithKimi(kimiAgentFailed(err.Error()), ""), nil
			case err != nil:
				return Errorf("task %q failed: %v", a.Description, err).WithKimi(kimiAgentFailed(err.Error()), ""), nil
			case strings.TrimSpace(answer) == "":
				return Errorf("task %q ended without an answer", a.Description).
					WithKimi("Agent completed but produced no output.", ""), nil
			}
			// A finished task's line is its answer alone: Kimi's heads it with the ids of its
			// stored subagent instances, which kimi-run does not keep.
			return Text(answer), nil
		})
}

// kimiAgentFailed words a task that failed as Kimi CLI's Agent tool does
// (tools/agent/__init__.py), for its message lines.
func kimiAgentFailed(why string) string { return "Failed to run agent: " + why }

func agentDescription(types []SubagentType) string {
	var b strings.Builder
	b.WriteString(`Delegate a self-contained piece of work to a subagent and get its final answer back. The subagent runs with a fresh, empty context and the same model, works until it has an answer, and cannot start subagents itself. Use it to keep your own context small: broad searches across a large codebase, investigating one question in depth, or an independent change that can be described completely. Several Agent calls in one reply run in parallel. The subagent cannot see this conversation, so the prompt must say everything. Its steps count toward a budget for the whole run.`)
	if len(types) > 0 {
		b.WriteString("\n\nKinds of subagent (subagent_type):")
		for _, t := range types {
			fmt.Fprintf(&b, "\n- %s: %s", t.Name, strings.Join(strings.Fields(t.Description), " "))
		}
	}
	return b.String()
}

package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SubagentType is one kind of subagent the Agent tool may start, as the model sees it.
type SubagentType struct {
	Name        string
	Description string
}

type agentArgs struct {
	Description     string  `json:"description" description:"A short title for the task (3-8 words), shown in progress output."`
	Prompt          string  `json:"prompt" description:"The complete instructions for the subagent. It starts with an empty context: include every file path, fact and constraint it needs, and say what its final answer must contain."`
	SubagentType    string  `json:"subagent_type,omitempty" default:"\"coder\"" description:"Which kind of subagent to start (default coder); the kinds are listed in the tool description."`
	Model           *string `json:"model,omitempty" null:"true" default:"null" description:"A model for the subagent (a configured model name); default: the one you run on."`
	Resume          *string `json:"resume,omitempty" null:"true" default:"null" description:"The agent_id an earlier Agent result gave, to continue that subagent with its context instead of starting a fresh one."`
	RunInBackground bool    `json:"run_in_background,omitempty" default:"false" description:"Accepted, but the subagent always runs in the foreground: the call returns its answer."`
	Timeout         *int    `json:"timeout,omitempty" null:"true" default:"null" minimum:"30" maximum:"3600" description:"Seconds the subagent may run before it is stopped, 30 to 3600; default: no limit."`
}

// Agent timeouts, in seconds, as Kimi CLI bounds them.
const (
	agentMinTimeout = 30
	agentMaxTimeout = 3600
)

// agentSecond is the unit of an Agent call's timeout; tests shorten it.
var agentSecond = time.Second

// errAgentTimeout is the cause of a subagent's context when its timeout ran out.
var errAgentTimeout = errors.New("the Agent call's timeout ran out")

// NewAgent returns the Agent tool, which hands a self-contained piece of work to a
// subagent with a fresh context (or resumes one) and returns its final answer.
// env.SubagentTypes are listed in its description.
func NewAgent(env Env) Tool {
	return New("Agent", agentDescription(env.SubagentTypes), Facts{RootOnly: true},
		func(ctx context.Context, a agentArgs) (Result, error) {
			if strings.TrimSpace(a.Prompt) == "" {
				return Errorf("prompt is empty: tell the subagent what to do").WithKimi(kimiAgentFailed("prompt is empty"), ""), nil
			}
			call := SubagentCall{Description: a.Description, Prompt: a.Prompt, Kind: a.SubagentType}
			if a.Model != nil {
				call.Model = strings.TrimSpace(*a.Model)
			}
			if a.Resume != nil {
				call.Resume = strings.TrimSpace(*a.Resume)
			}
			runCtx := ctx
			if a.Timeout != nil {
				if *a.Timeout < agentMinTimeout || *a.Timeout > agentMaxTimeout {
					return Errorf("timeout must be between %d and %d seconds, got %d", agentMinTimeout, agentMaxTimeout, *a.Timeout), nil
				}
				var cancel context.CancelFunc
				runCtx, cancel = context.WithTimeoutCause(ctx, time.Duration(*a.Timeout)*agentSecond, errAgentTimeout)
				defer cancel()
			}
			ans, err := env.Subagent.RunSubagent(runCtx, call)
			var notes []string
			if a.RunInBackground {
				notes = append(notes, "run_in_background: the subagent ran in the foreground (kimi-run runs subagents only so); its answer is below.")
			}
			if ans.Note != "" {
				notes = append(notes, ans.Note)
			}
			if ans.ID != "" {
				notes = append(notes, "agent_id: "+ans.ID+" (pass it as resume to continue this subagent)")
			}
			head := strings.Join(notes, "\n")
			switch {
			case err != nil && ctx.Err() == nil && errors.Is(context.Cause(runCtx), errAgentTimeout):
				return Errorf("task %q was stopped: its timeout of %ds ran out before it finished\n%s\nIts last message:\n%s", a.Description, *a.Timeout, head, ans.Text).
					WithKimi(kimiAgentFailed(fmt.Sprintf("timed out after %ds", *a.Timeout)), ""), nil
			case err != nil && ctx.Err() != nil:
				return Errorf("task %q was cancelled", a.Description), nil
			case err != nil && ans.Text != "":
				return Errorf("task %q did not finish: %v\n%s\nIts last message:\n%s", a.Description, err, head, ans.Text).
					WithKimi(kimiAgentFailed(err.Error()), ""), nil
			case err != nil:
				return Errorf("task %q failed: %v", a.Description, err).WithKimi(kimiAgentFailed(err.Error()), ""), nil
			case strings.TrimSpace(ans.Text) == "":
				return Errorf("task %q ended without an answer\n%s", a.Description, head).
					WithKimi("Agent completed but produced no output.", ""), nil
			}
			if head != "" {
				head += "\n\n"
			}
			return Text(head+ans.Text).WithKimi("", kimiAgentDone(ans)), nil
		})
}

// kimiAgentFailed words a task that failed as Kimi CLI's Agent tool does
// (tools/agent/__init__.py), for its message lines.
func kimiAgentFailed(why string) string { return "Failed to run agent: " + why }

// kimiAgentDone lays out a finished task as Kimi CLI's subagent runner does
// (src/kimi_cli/subagents/runner.py), for its message lines: the instance's fields, then
// the answer.
func kimiAgentDone(ans SubagentAnswer) string {
	return fmt.Sprintf("agent_id: %s\nresumed: %t\nactual_subagent_type: %s\nstatus: completed\n\n[summary]\n%s", ans.ID, ans.Resumed, ans.Kind, ans.Text)
}

func agentDescription(types []SubagentType) string {
	var b strings.Builder
	b.WriteString(`Delegate a self-contained piece of work to a subagent and get its final answer back. The subagent runs with a fresh, empty context (with resume: the context of one an earlier call ran) and your model unless model names another, works until it has an answer, and cannot start subagents itself. Use it to keep your own context small: broad searches across a large codebase, investigating one question in depth, or an independent change that can be described completely. Several Agent calls in one reply run in parallel. The subagent cannot see this conversation, so the prompt must say everything. Its steps count toward a budget for the whole run.`)
	if len(types) > 0 {
		b.WriteString("\n\nKinds of subagent (subagent_type):")
		for _, t := range types {
			fmt.Fprintf(&b, "\n- %s: %s", t.Name, strings.Join(strings.Fields(t.Description), " "))
		}
	}
	return b.String()
}

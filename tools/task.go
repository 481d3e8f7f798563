package tools

import (
	"context"
	"strings"
)

type taskArgs struct {
	Description string `json:"description" description:"A short title for the task (3-8 words), shown in progress output."`
	Prompt      string `json:"prompt" description:"The complete instructions for the subagent. It starts with an empty context: include every file path, fact and constraint it needs, and say what its final answer must contain."`
	Subagent    string `json:"subagent,omitempty" enum:"coder,explore" description:"coder (default): may read, search, run commands and edit files. explore: reads and searches only."`
}

// NewTask returns the Task tool, which hands a self-contained piece of work to a subagent
// with a fresh context and returns its final answer.
func NewTask(env Env) Tool {
	return New("Task",
		`Delegate a self-contained piece of work to a subagent and get its final answer back. The subagent runs with a fresh, empty context, the same model and the same tools (except Task), and works until it has an answer. Use it to keep your own context small: broad searches across a large codebase, investigating one question in depth, or an independent change that can be described completely. Several Task calls in one reply run in parallel. The subagent cannot see this conversation, so the prompt must say everything. Its steps count toward a budget for the whole run.`,
		func(ctx context.Context, a taskArgs) (Result, error) {
			if strings.TrimSpace(a.Prompt) == "" {
				return Errorf("prompt is empty: tell the subagent what to do"), nil
			}
			answer, err := env.Subagent.RunSubagent(ctx, a.Description, a.Prompt, a.Subagent)
			switch {
			case err != nil && ctx.Err() != nil:
				return Errorf("task %q was cancelled", a.Description), nil
			case err != nil && answer != "":
				return Errorf("task %q did not finish: %v\nIts last message:\n%s", a.Description, err, answer), nil
			case err != nil:
				return Errorf("task %q failed: %v", a.Description, err), nil
			case strings.TrimSpace(answer) == "":
				return Errorf("task %q ended without an answer", a.Description), nil
			}
			return Text(answer), nil
		})
}

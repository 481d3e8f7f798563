package tools

import (
	"context"
	"strings"
)

const thinkDescription = `Write down your reasoning before acting: a plan, a hypothesis about a bug, or
a check of what you have learned so far. Nothing is executed and nothing changes; the thought
simply becomes part of the conversation. Use it when a step needs careful thought, for
example before a large edit or after a confusing tool result.`

// thinkArgs are the arguments of the Think tool.
type thinkArgs struct {
	Thought string `json:"thought" description:"your reasoning, in as many words as it needs"`
}

// NewThink returns the Think tool, a scratchpad that acknowledges the model's reasoning.
// The thought itself is kept in the transcript as the call's arguments.
func NewThink(Env) Tool {
	return New("Think", thinkDescription, Facts{ReadOnly: true, OptIn: true}, func(_ context.Context, in thinkArgs) (Result, error) {
		if strings.TrimSpace(in.Thought) == "" {
			return Errorf("the thought is empty"), nil
		}
		return Text("Thought recorded. Carry on with the task.").WithKimi("Thought logged", ""), nil
	})
}

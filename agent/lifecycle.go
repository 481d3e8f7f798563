package agent

import "context"

// Lifecycle is told of the moments in an agent's life that the user's hooks watch
// (compaction, subagents). The calls are synchronous and must return in bounded time;
// they cannot change what the agent does. Tool calls are watched by wrapping the tools,
// and turns by the caller of Turn, so neither appears here.
type Lifecycle interface {
	// SubagentStart is called before a subagent of kind runs prompt.
	SubagentStart(ctx context.Context, kind, prompt string)
	// SubagentStop is called when it has finished, with its final answer ("" if none).
	SubagentStop(ctx context.Context, kind, answer string)
	// PreCompact is called before the context (tokens large) is compacted.
	PreCompact(ctx context.Context, tokens int)
	// PostCompact is called after compaction, with the estimated size of the new context.
	PostCompact(ctx context.Context, tokens int)
}

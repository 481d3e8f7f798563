package agent

import (
	"context"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/session"
	"github.com/kimi-run/kimi-run/tools"
)

// Config is what New builds an Agent from.
type Config struct {
	Model model.Model
	Sink  event.Sink
	// SystemPrompt renders the prompt that opens the conversation; it lists the toolset,
	// so it is given the tools New built.
	SystemPrompt func(toolset []tools.Tool) string
	// MaxSteps bounds model calls per turn; it must be set (see Agent.MaxSteps).
	MaxSteps   int
	Retry      RetryPolicy
	Compaction Compaction
	// Session, when set, receives every record of the conversation.
	Session *session.File
	// DMail gives the agent the SendDMail tool and shows it checkpoint markers.
	DMail bool
	// Tools builds the agent's toolset. The tools that need the agent itself get it
	// through d: Agent runs subagents, SendDMail rewinds the conversation.
	Tools func(d Delegates) []tools.Tool
	// SubagentModel, when set, says whether a subagent may run on the model an Agent call
	// names: nil for yes (its calls then carry model.WithModelID), an error saying why not.
	// nil: no subagent switches model.
	SubagentModel func(id string) error
	// Subagents returns the kinds of subagent an Agent call may start ("coder" is the
	// default kind), given the parent's toolset. nil gives subagents no kinds: every
	// Agent call fails.
	Subagents func(parent []tools.Tool) map[string]SubagentKind
	// Lifecycle, when set, is told of compactions and subagents, the parent's and its
	// subagents' alike.
	Lifecycle Lifecycle
	// Fallback, when set, switches Model over to the next fallback model (--fallback-model)
	// and says which; ok is false when there is none left. See Agent.Fallback.
	Fallback func() (Switch, bool)
	// MaxToolCalls caps the tool calls of the run, subagents' included (--max-tool-calls);
	// 0 means no cap. A call past it does not run, and the turn ends with a
	// *model.BudgetError of kind model.BudgetToolCalls once its step is done.
	MaxToolCalls int
	// Heartbeat is how often a running tool call is reported (Agent.Heartbeat); 0: never.
	Heartbeat time.Duration
	// Inbox hands the main agent messages before each step (Agent.Inbox); nil: none.
	Inbox func(ctx context.Context) []string
}

// Delegates are the parts of an Agent that tools call back into.
type Delegates struct {
	// Subagent runs Agent calls in fresh agents sharing the parent's model and sink.
	Subagent tools.Subagent
	// DMail delivers SendDMail calls; nil unless Config.DMail.
	DMail tools.DMailer
}

// New builds an Agent and its subagents in one go: the toolset, the subagents that use
// it and the agent they report to refer to one another, so they are wired here rather
// than by every caller.
func New(cfg Config) *Agent {
	a := &Agent{
		Model:             cfg.Model,
		Sink:              cfg.Sink,
		MaxSteps:          cfg.MaxSteps,
		Retry:             cfg.Retry,
		Compaction:        cfg.Compaction,
		Session:           cfg.Session,
		CheckpointMarkers: cfg.DMail,
		Lifecycle:         cfg.Lifecycle,
		Fallback:          cfg.Fallback,
		ToolCap:           NewToolCap(cfg.MaxToolCalls),
		Heartbeat:         cfg.Heartbeat,
		Inbox:             cfg.Inbox,
	}
	subs := &Subagents{Parent: a, SwitchModel: cfg.SubagentModel}
	d := Delegates{Subagent: subs}
	if cfg.DMail {
		d.DMail = a
	}
	if cfg.Tools != nil {
		a.Tools = cfg.Tools(d)
	}
	if cfg.SystemPrompt != nil {
		a.SystemPrompt = cfg.SystemPrompt(a.Tools)
	}
	if cfg.Subagents != nil {
		subs.Kinds = cfg.Subagents(a.Tools)
	}
	return a
}

// Package agent is the agent loop: turns of model calls and tool calls against a
// chat-completions model, with retries, token accounting and the events that report it all.
package agent

import (
	"context"
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/event"

	"github.com/kimi-run/kimi-run/tools"
)

// Defaults, matching Kimi CLI where that is sound.
const (
	DefaultMaxSteps    = 1000
	DefaultMaxAttempts = 3
	// MaxCallsPerReply bounds the tool calls run from one reply; the rest are answered
	// with an error result so a runaway reply cannot fork thousands of processes.
	MaxCallsPerReply = 64
)

// Agent runs turns. It holds the conversation; it is not safe for concurrent turns.
type Agent struct {
	// Model answers; Tools are offered to it; Sink receives every event.
	Model Model
	Tools []tools.Tool
	Sink  event.Sink
	// SystemPrompt opens the conversation.
	SystemPrompt string
	// MaxSteps bounds model calls per turn (default DefaultMaxSteps).
	MaxSteps int
	// Retry is the policy for failed model calls.
	Retry RetryPolicy
	// Now is the clock for events (default time.Now).
	Now func() time.Time
	// Parent marks events of a subagent with the Agent call that runs it.
	Parent string
	// Compaction keeps the conversation within the context window.
	Compaction Compaction
	// Session, when set, receives every record of the conversation as it happens.
	Session *Session
	// CheckpointMarkers shows the model a <system>CHECKPOINT N</system> message at each
	// checkpoint, so that it can name one in a D-Mail.
	CheckpointMarkers bool
	// Lifecycle, when set, is told of compactions and subagents.
	Lifecycle Lifecycle

	history []Message
	// child sums the work of subagents, added from tool goroutines.
	childMu sync.Mutex
	child   Stats
	// usageAt is the length of history when the last usage was reported.
	usageAt int
	// checkpoints holds the history length at each checkpoint, by id.
	checkpoints []int
	// marks are conversations saved by Mark.
	marks [][]Message
	// dmail is a D-Mail sent during the current step, delivered after it.
	dmail     *dmail
	dmailMu   sync.Mutex
	sessionMu sync.Mutex
	turns     int
	stats     Stats
}

// Stats are running totals over every turn of an Agent.
type Stats struct {
	Steps     int
	ToolCalls int
	Usage     TokenUsage
	// ContextTokens is the size of the context at the last model call.
	ContextTokens int
}

// Stats returns the totals so far, subagents included.
func (a *Agent) Stats() Stats {
	a.childMu.Lock()
	defer a.childMu.Unlock()
	st := a.stats
	st.Steps += a.child.Steps
	st.ToolCalls += a.child.ToolCalls
	st.Usage.InputTokens += a.child.Usage.InputTokens
	st.Usage.OutputTokens += a.child.Usage.OutputTokens
	st.Usage.CachedTokens += a.child.Usage.CachedTokens
	return st
}

// History returns a copy of the conversation, system prompt first.
func (a *Agent) History() []Message {
	a.init()
	return append([]Message(nil), a.history...)
}

func (a *Agent) init() {
	if a.history == nil {
		a.history = []Message{{Role: RoleSystem, Content: a.SystemPrompt}}
		a.persist(func(s *Session) error { return s.SystemPrompt(a.SystemPrompt) })
	}
}

func (a *Agent) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func (a *Agent) emit(t event.Type, data any) {
	s := a.Sink
	if s == nil {
		return
	}
	s.Emit(event.Event{Type: t, Time: a.now(), Parent: a.Parent, Data: data})
}

func (a *Agent) tool(name string) tools.Tool {
	for _, t := range a.Tools {
		if t.Name() == name {
			return t
		}
	}
	return nil
}

// Turn runs one prompt until the model answers without tool calls, the step budget runs out,
// or an error stops it. A returned error means the run cannot go on (provider failure after
// retries, cancellation, a tool's Go error); limits are reported in the outcome.
func (a *Agent) Turn(ctx context.Context, spec event.TurnSpec) (event.TurnOutcome, error) {
	a.init()
	a.turns++
	turn := a.turns
	maxSteps := spec.MaxSteps
	if maxSteps <= 0 {
		maxSteps = a.MaxSteps
	}
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	a.emit(event.TypeTurnBegin, event.TurnBegin{Turn: turn, Iteration: spec.Iteration, Node: spec.Node})
	a.checkpoint()
	a.appendMsg(Message{Role: RoleUser, Content: spec.Prompt})

	var out event.TurnOutcome
	guard := &repeatGuard{}
	end := func(reason string) {
		a.persist(func(s *Session) error { return s.Sync() })
		a.emit(event.TypeTurnEnd, event.TurnEnd{Turn: turn, Iteration: spec.Iteration, Node: spec.Node, Steps: out.Steps, StopReason: reason})
	}
	for step := 1; ; step++ {
		if step > maxSteps {
			out.StopReason = event.StopMaxSteps
			end(string(out.StopReason))
			return out, nil
		}
		if err := ctx.Err(); err != nil {
			end("error")
			return out, context.Cause(ctx)
		}
		if err := a.maybeCompact(ctx); err != nil {
			end("error")
			return out, err
		}
		a.checkpoint()
		a.emit(event.TypeStepBegin, event.StepBegin{Turn: turn, Step: step})
		out.Steps++
		a.stats.Steps++
		res, err := a.step(ctx, step, guard)
		out.ToolCalls += res.calls
		if res.text != "" {
			out.FinalText = res.text
		}
		if err != nil {
			end("error")
			return out, err
		}
		if d := a.takeDMail(); d != nil {
			if err := a.deliver(d); err != nil {
				end("error")
				return out, err
			}
			continue
		}
		if res.calls == 0 {
			out.StopReason = event.StopCompleted
			end(string(out.StopReason))
			return out, nil
		}
		if guard.nextStep() {
			out.StopReason = event.StopRepeat
			end(string(out.StopReason))
			return out, nil
		}
	}
}

// Package agent is the agent loop: turns of model calls and tool calls against a
// chat-completions model, with retries, token accounting and the events that report it all.
package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/session"
	"github.com/kimi-run/kimi-run/tools"
)

// Limits of the loop that are not settings. The step limit and the attempts are settings
// (config.DefaultMaxSteps, config.DefaultAttempts): the agent has no defaults of its own
// for them.
const (
	// MaxCallsPerReply bounds the tool calls run from one reply; the rest are answered
	// with an error result so a runaway reply cannot fork thousands of processes.
	MaxCallsPerReply = 64
	// MaxContinuations bounds how often a final answer cut at the completion token limit is
	// continued; an answer still cut after that ends the turn with StopTruncated.
	MaxContinuations = 2
)

// errNoStepLimit is a turn asked of an agent that was given no step limit: a programming
// error, reported rather than run without a bound.
var errNoStepLimit = errors.New("agent: no step limit: set Agent.MaxSteps")

// continueNote asks the model to go on with an answer that the token limit cut off.
const continueNote = "<system>Your reply was cut off at the output token limit. Continue exactly where it stopped, without repeating anything already written.</system>"

// Agent runs turns. It holds the conversation; it is not safe for concurrent turns.
type Agent struct {
	// Model answers; Tools are offered to it; Sink receives every event.
	Model model.Model
	Tools []tools.Tool
	Sink  event.Sink
	// SystemPrompt opens the conversation.
	SystemPrompt string
	// MaxSteps bounds model calls per turn; it must be set (a turn without a limit is an
	// error), as run does from the settings.
	MaxSteps int
	// Retry is the policy for failed model calls.
	Retry RetryPolicy
	// Parent marks events of a subagent with the Agent call that runs it.
	Parent string
	// Compaction keeps the conversation within the context window.
	Compaction Compaction
	// Session, when set, receives every record of the conversation as it happens.
	Session *session.File
	// CheckpointMarkers shows the model a <system>CHECKPOINT N</system> message at each
	// checkpoint, so that it can name one in a D-Mail.
	CheckpointMarkers bool
	// Lifecycle, when set, is told of compactions and subagents.
	Lifecycle Lifecycle
	// ResumeTurn lets the first Turn after Restore continue the restored conversation's
	// unfinished turn (one that never got a final answer: a killed or failed run) when its
	// prompt is that turn's prompt, instead of asking the same thing again: a retried CI job
	// then picks up at the step where the last attempt stopped.
	ResumeTurn bool
	// Fallback, when set, is asked once a model call (a step's, or a compaction's summary)
	// has failed transiently after every retry: it switches Model to the next model of the
	// fallback chain and says which, and the call is made again there, with a warning and a
	// model_fallback event. Called again while calls keep failing, it walks the chain in
	// order; ok false: no fallback left.
	Fallback func() (Switch, bool)

	// ToolCap caps the tool calls of the run (nil: no cap); subagents share their parent's.
	ToolCap *ToolCap
	// Inbox, when set, is asked before each step for messages that arrived while the agent
	// worked (the notices of background tasks that ended): each becomes a user message of
	// the conversation, after the step's compaction and before its checkpoint and model call. Only the
	// main agent has one.
	Inbox func(ctx context.Context) []string
	// Heartbeat, when positive, is how often a running tool call is reported with a
	// tool_progress event (--heartbeat), from one Heartbeat after it started until it ends.
	Heartbeat time.Duration

	history []model.Message
	// child sums the work of subagents, added from tool goroutines.
	childMu sync.Mutex
	child   Stats
	// usageAt is the length of history when the last usage was reported.
	usageAt int
	// checkpoints holds the history length at each checkpoint, by id.
	checkpoints []int
	// marks are conversations saved by Mark.
	marks [][]model.Message
	// dmail is a D-Mail sent during the current step, delivered after it.
	dmail     *dmail
	dmailMu   sync.Mutex
	sessionMu sync.Mutex
	// sessionErr is the first failure to write the session.
	sessionErr error
	turns      int
	stats      Stats
}

// Stats are running totals over every turn of an Agent.
type Stats struct {
	Steps     int
	ToolCalls int
	Usage     model.TokenUsage
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
	st.Usage.Add(a.child.Usage)
	return st
}

// History returns a copy of the conversation, system prompt first.
func (a *Agent) History() []model.Message {
	a.init()
	return append([]model.Message(nil), a.history...)
}

func (a *Agent) init() {
	if a.history == nil {
		a.history = []model.Message{{Role: model.RoleSystem, Content: a.SystemPrompt}}
		a.persist(func(s *session.File) error { return s.SystemPrompt(a.SystemPrompt) })
	}
}

func (a *Agent) emit(p event.Payload) {
	s := a.Sink
	if s == nil {
		return
	}
	s.Emit(event.Event{Time: time.Now(), Parent: a.Parent, Data: p})
}

func (a *Agent) tool(name string) tools.Tool {
	for _, t := range a.Tools {
		if t.Name() == name {
			return t
		}
	}
	return nil
}

// readInbox adds what arrived in the inbox to the conversation, as user messages.
func (a *Agent) readInbox(ctx context.Context) {
	if a.Inbox == nil {
		return
	}
	for _, m := range a.Inbox(ctx) {
		a.appendMsg(model.Message{Role: model.RoleUser, Content: m})
	}
}

// Turn runs one prompt until the model answers without tool calls, the step budget runs out,
// or an error stops it. A returned error means the run cannot go on (provider failure after
// retries, cancellation, a tool's Go error); limits are reported in the outcome.
func (a *Agent) Turn(ctx context.Context, spec event.TurnSpec) (event.TurnOutcome, error) {
	a.init()
	if a.MaxSteps <= 0 {
		return event.TurnOutcome{}, errNoStepLimit
	}
	a.turns++
	turn := a.turns
	a.emit(event.TurnBegin{Turn: turn, Iteration: spec.Iteration, Node: spec.Node})
	// A prompt with images is always asked again: the session keeps only its text.
	if steps, ok := a.unfinishedTurn(turn, spec.Prompt); ok && len(spec.Images) == 0 {
		a.emit(event.Warning{Message: fmt.Sprintf(
			"continuing the session's unfinished turn: its prompt is this one and %d step(s) of it are saved, so it is not asked again", steps)})
	} else {
		a.checkpoint()
		a.appendMsg(model.Message{Role: model.RoleUser, Content: spec.Prompt, Images: spec.Images})
	}

	var out event.TurnOutcome
	guard := &repeatGuard{}
	// answer holds the parts of a final answer that the token limit cut, to be continued.
	answer, continued := "", 0
	end := func(reason string) {
		a.persist(func(s *session.File) error { return s.Sync() })
		a.emit(event.TurnEnd{Turn: turn, Iteration: spec.Iteration, Node: spec.Node, Steps: out.Steps, StopReason: reason})
	}
	for step := 1; ; step++ {
		if step > a.MaxSteps {
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
		a.readInbox(ctx)
		a.checkpoint()
		a.emit(event.StepBegin{Turn: turn, Step: step})
		out.Steps++
		a.stats.Steps++
		res, err := a.step(ctx, step, guard)
		out.ToolCalls += res.calls
		if res.calls > 0 {
			answer = "" // the model went back to work; its answer starts again
		}
		if res.text != "" || answer != "" {
			out.FinalText = answer + res.text
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
		if res.calls == 0 && res.cut {
			if continued == MaxContinuations {
				out.StopReason = event.StopTruncated
				end(string(out.StopReason))
				return out, nil
			}
			continued++
			answer = out.FinalText
			a.emit(event.Warning{Message: fmt.Sprintf(
				"step %d: the answer was cut off at the completion token limit; asking the model to continue (%d of %d)", step, continued, MaxContinuations)})
			a.appendMsg(model.Message{Role: model.RoleUser, Content: continueNote})
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

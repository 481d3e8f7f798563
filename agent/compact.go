package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/model"
)

// Compaction keeps a long conversation within the model's context window.
type Compaction struct {
	// MaxContext is the model's context size in tokens; 0 turns compaction off.
	MaxContext int
	// Reserve is the room kept free for the reply (default 50,000, at most a quarter of
	// MaxContext so that small windows still work).
	Reserve int
	// TriggerRatio compacts once the context passes this share of MaxContext (default 0.85).
	TriggerRatio float64
	// CapCompletion asks each request for at most the completion tokens that still fit.
	// Leave it off when MaxContext is a guess: a server with a smaller window rejects a
	// request whose max_completion_tokens exceeds it.
	CapCompletion bool
	// CompletionCap is a hard cap on the completion tokens of every request
	// (KIMI_MODEL_MAX_COMPLETION_TOKENS); with CapCompletion the smaller of the two is
	// asked for. 0 means no hard cap.
	CompletionCap int
}

func (c Compaction) reserve() int {
	r := c.Reserve
	if r <= 0 {
		r = 50_000
	}
	return min(r, c.MaxContext/4)
}

func (c Compaction) due(tokens int) bool {
	if c.MaxContext <= 0 {
		return false
	}
	ratio := c.TriggerRatio
	if ratio <= 0 || ratio >= 1 {
		ratio = 0.85
	}
	return float64(tokens) >= ratio*float64(c.MaxContext) || tokens+c.reserve() >= c.MaxContext
}

// ContextTokens is the size of the conversation now: the last reported usage plus an
// estimate for the messages added since.
func (a *Agent) ContextTokens() int {
	a.init()
	if a.usageAt > len(a.history) {
		a.usageAt = len(a.history)
	}
	if a.usageAt == 0 {
		return model.EstimateTokens(a.history)
	}
	return a.stats.ContextTokens + model.EstimateTokens(a.history[a.usageAt:])
}

// completionBudget is the most completion tokens the next request may ask for; 0 asks for
// no limit (compaction off, or the window is unknown).
func (a *Agent) completionBudget() int {
	hard := max(a.Compaction.CompletionCap, 0)
	if a.Compaction.MaxContext <= 0 || !a.Compaction.CapCompletion {
		return hard
	}
	left := max(a.Compaction.MaxContext-a.ContextTokens()-1024, 1)
	if hard > 0 {
		return min(hard, left)
	}
	return left
}

// maybeCompact compacts the conversation before a step when it has grown too large.
func (a *Agent) maybeCompact(ctx context.Context) error {
	tokens := a.ContextTokens()
	if !a.Compaction.due(tokens) {
		return nil
	}
	return a.Compact(ctx)
}

const (
	compactSystem = "You condense a coding agent's conversation into a briefing that lets the agent continue the work without the original messages."
	compactAsk    = `Write the briefing now. Keep what the agent needs to finish the task and drop the rest: greetings, repeated tool output, dead ends that taught nothing. Quote short code (under 20 lines) and exact error messages, file paths, commands and names verbatim. Use these sections:

<current_focus>What the agent is doing right now and the next step.</current_focus>
<environment>The project, tools, commands and conventions that matter.</environment>
<completed_tasks>What is done, with the files changed.</completed_tasks>
<active_issues>Open problems and errors, with what was tried.</active_issues>
<code_state>The current state of each file that matters: <file path="...">summary or short code</file></code_state>
<important_context>Decisions, constraints and facts from the user or the tools that must not be lost.</important_context>`
	compactedNote = "<system>The earlier part of this conversation was compacted to fit the context window. This briefing replaces it:</system>\n\n"
	// compactInputCap bounds each message in the compaction request.
	compactInputCap = 4000
)

// Compact replaces all but the latest exchange with a summary written by the model. When the
// summary request fails it falls back to dropping the oldest messages, so the run goes on.
func (a *Agent) Compact(ctx context.Context) error {
	a.init()
	keepFrom := a.keepFrom()
	if keepFrom <= 1 {
		return nil // nothing older than the latest exchange
	}
	before := a.ContextTokens()
	if a.Lifecycle != nil {
		a.Lifecycle.PreCompact(ctx, before)
		defer func() {
			if ctx.Err() == nil { // not after a cancelled summary: the run is ending
				a.Lifecycle.PostCompact(ctx, a.ContextTokens())
			}
		}()
	}
	a.emit(event.CompactionBegin{TokensBefore: before})

	old := a.history[1:keepFrom]
	kept := append([]model.Message(nil), a.history[keepFrom:]...)
	summary, usage, err := a.summarise(ctx, old)
	if err != nil {
		if cerr := context.Cause(ctx); cerr != nil {
			return cerr
		}
		var be *model.BudgetError
		if errors.As(err, &be) {
			// Dropping messages would not make the run affordable; it ends here.
			return err
		}
		a.truncate(keepFrom)
		after := model.EstimateTokens(a.history)
		a.stats.ContextTokens, a.usageAt = after, len(a.history)
		a.emit(event.CompactionEnd{TokensBefore: before, TokensAfter: after, Fallback: true, Error: err.Error()})
		return a.persistReset()
	}
	a.history = append([]model.Message{a.history[0], {Role: model.RoleUser, Content: compactedNote + summary}}, kept...)
	after := usage.OutputTokens + model.EstimateTokens(kept) + model.EstimateTokens(a.history[:1])
	a.stats.ContextTokens, a.usageAt = after, len(a.history)
	a.emit(event.CompactionEnd{TokensBefore: before, TokensAfter: after})
	return a.persistReset()
}

// keepFrom is the index of the first message kept by compaction: the second-to-last user or
// assistant message, so the latest exchange survives whole.
func (a *Agent) keepFrom() int {
	seen := 0
	for i := len(a.history) - 1; i >= 1; i-- {
		if r := a.history[i].Role; r == model.RoleUser || r == model.RoleAssistant {
			seen++
			if seen == 2 {
				return i
			}
		}
	}
	return 0
}

func (a *Agent) summarise(ctx context.Context, old []model.Message) (string, model.TokenUsage, error) {
	var b strings.Builder
	for i, m := range old {
		fmt.Fprintf(&b, "## Message %d\nRole: %s\n", i+1, m.Role)
		if m.Content != "" {
			b.WriteString(clip(m.Content, compactInputCap))
			b.WriteByte('\n')
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "Tool call %s: %s\n", c.Name, clip(c.Arguments, compactInputCap/4))
		}
		b.WriteByte('\n')
	}
	b.WriteString(compactAsk)
	req := model.Request{
		Messages: []model.Message{{Role: model.RoleSystem, Content: compactSystem}, {Role: model.RoleUser, Content: b.String()}},
		NoTools:  true,
	}
	reply, err := a.callFallingBack(ctx, 0, req, model.Handler{})
	if err != nil {
		return "", model.TokenUsage{}, err
	}
	a.addUsage(reply.Usage)
	if strings.TrimSpace(reply.Text) == "" {
		return "", model.TokenUsage{}, model.ErrEmptyReply
	}
	return reply.Text, reply.Usage, nil
}

// truncate is the fallback when no summary could be had: keep the system prompt, the first
// user prompt and the newest messages from keepFrom on, with a note of what was dropped.
func (a *Agent) truncate(keepFrom int) {
	first := -1
	for i := 1; i < keepFrom; i++ {
		if a.history[i].Role == model.RoleUser {
			first = i
			break
		}
	}
	out := []model.Message{a.history[0]}
	dropped := keepFrom - 1
	if first > 0 {
		out = append(out, a.history[first])
		dropped--
	}
	out = append(out, model.Message{Role: model.RoleUser, Content: fmt.Sprintf(
		"<system>%d earlier messages were dropped to fit the context window (summarising them failed). Re-read files you need; do not rely on memory of them.</system>", dropped)})
	a.history = append(out, a.history[keepFrom:]...)
}

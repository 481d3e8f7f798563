package agent

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/tools"
)

// Subagents runs Agent calls: each task gets a fresh Agent with the same model, its own
// context and the tools of its kind, and runs one turn to completion. Its events go to the
// parent's sink marked with the Agent call's id. It implements tools.Subagent.
type Subagents struct {
	Parent *Agent
	// Kinds are the subagents an Agent call may start, by name; "coder" is the default.
	Kinds map[string]SubagentKind
	// MaxSteps bounds one task (default 100).
	MaxSteps int
	// Budget bounds the steps of all tasks of the run together (default 500), so a model
	// that keeps delegating cannot run forever.
	Budget int

	mu   sync.Mutex
	used int
}

// RunSubagent implements tools.Subagent.
func (s *Subagents) RunSubagent(ctx context.Context, description, prompt, kind string) (string, error) {
	if kind == "" {
		kind = "coder"
	}
	k, ok := s.Kinds[kind]
	if !ok {
		names := make([]string, 0, len(s.Kinds))
		for n := range s.Kinds {
			names = append(names, n)
		}
		sort.Strings(names)
		return "", fmt.Errorf("unknown subagent_type %q; the kinds are: %s", kind, strings.Join(names, ", "))
	}
	steps, err := s.reserve()
	if err != nil {
		return "", err
	}
	p := s.Parent
	system := k.SystemPrompt
	if system == "" {
		system = p.SystemPrompt
	}
	child := &Agent{
		Model:        p.Model,
		Tools:        k.Tools,
		Sink:         p.Sink,
		SystemPrompt: system,
		MaxSteps:     steps,
		Retry:        p.Retry,
		Now:          p.Now,
		Parent:       tools.CallID(ctx),
		Compaction:   p.Compaction,
		Lifecycle:    p.Lifecycle,
		Fallback:     p.Fallback,
		ToolCap:      p.ToolCap,
		Heartbeat:    p.Heartbeat,
	}
	// The subagent's conversation is saved beside the parent's, by the same rules, so that a
	// restore can tell the model what it had done if a kill interrupts it.
	if ps := p.session(); ps != nil {
		if store, err := ps.Child(tools.CallID(ctx)); err != nil {
			p.emit(event.Warning{Message: fmt.Sprintf("subagent %q: its conversation is not saved: %v", description, err)})
		} else {
			child.Session = store
			defer store.Close()
		}
	}
	if p.Lifecycle != nil {
		p.Lifecycle.SubagentStart(ctx, kind, prompt)
	}
	out, err := child.Turn(ctx, event.TurnSpec{Prompt: prompt, Node: description})
	if p.Lifecycle != nil {
		p.Lifecycle.SubagentStop(ctx, kind, out.FinalText)
	}
	st := child.Stats()
	s.release(steps - out.Steps)
	p.addChild(st)
	if err != nil {
		return out.FinalText, fmt.Errorf("subagent %q: %w", description, err)
	}
	if out.StopReason != event.StopCompleted {
		return out.FinalText, &SubagentStopped{Reason: out.StopReason, Steps: out.Steps}
	}
	return out.FinalText, nil
}

// SubagentKind is one kind of subagent: its tools and, when set, its own system prompt
// (empty: the parent's).
type SubagentKind struct {
	Tools        []tools.Tool
	SystemPrompt string
}

// SubagentStopped is a task that ended without a final answer.
type SubagentStopped struct {
	Reason event.StopReason
	Steps  int
}

func (e *SubagentStopped) Error() string {
	return fmt.Sprintf("the subagent stopped (%s) after %d steps without finishing", e.Reason, e.Steps)
}

// ErrSubagentBudget means the run's subagents used up their step budget.
var ErrSubagentBudget = errors.New("the subagent step budget of this run is used up; finish the work yourself")

func (s *Subagents) reserve() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	per, budget := s.MaxSteps, s.Budget
	if per <= 0 {
		per = 100
	}
	if budget <= 0 {
		budget = 500
	}
	left := budget - s.used
	if left <= 0 {
		return 0, ErrSubagentBudget
	}
	n := min(per, left)
	s.used += n
	return n, nil
}

func (s *Subagents) release(n int) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	s.used -= n
	s.mu.Unlock()
}

// addChild adds a subagent's totals to the run's. Subagents finish on tool goroutines while
// the parent's loop runs, hence the lock.
func (a *Agent) addChild(st Stats) {
	a.childMu.Lock()
	defer a.childMu.Unlock()
	a.child.Steps += st.Steps
	a.child.ToolCalls += st.ToolCalls
	a.child.Usage.Add(st.Usage)
}

var _ tools.Subagent = (*Subagents)(nil)

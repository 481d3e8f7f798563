package agent

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/tools"
)

// Subagents runs Agent calls: each task gets a fresh Agent with the same model, its own
// context and the tools of its kind, and runs one turn to completion. Its events go to the
// parent's sink marked with the Agent call's id. It implements tools.Subagent.
type Subagents struct {
	Parent *Agent
	// Kinds are the subagents an Agent call may start, by name; "coder" is the default.
	Kinds map[string]SubagentKind
	// SwitchModel says whether a subagent may run on the model an Agent call names (see
	// Config.SubagentModel); nil: none may.
	SwitchModel func(id string) error

	mu   sync.Mutex
	used int
	// ran are the subagents run so far, by ID, for a resume.
	ran map[string]ranSubagent
}

// ranSubagent is a subagent that ran, kept for a resume.
type ranSubagent struct {
	agent       *Agent
	kind, model string
}

// RunSubagent implements tools.Subagent.
func (s *Subagents) RunSubagent(ctx context.Context, call tools.SubagentCall) (tools.SubagentAnswer, error) {
	if call.Resume != "" {
		s.mu.Lock()
		prev, ok := s.ran[call.Resume]
		delete(s.ran, call.Resume) // one call at a time continues it
		s.mu.Unlock()
		if !ok {
			return tools.SubagentAnswer{}, fmt.Errorf("no subagent of this run has the agent_id %q, or it is running; leave resume out to start a fresh one", call.Resume)
		}
		// Its earlier turns are counted already: this one's are counted anew.
		child := prev.agent
		child.stats.Steps, child.stats.ToolCalls, child.stats.Usage = 0, 0, model.TokenUsage{}
		call.Kind = prev.kind
		if call.Model == "" {
			call.Model = prev.model
		}
		return s.run(ctx, call, child, call.Resume, true)
	}
	kind := call.Kind
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
		return tools.SubagentAnswer{}, fmt.Errorf("unknown subagent_type %q; the kinds are: %s", kind, strings.Join(names, ", "))
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
		Retry:        p.Retry,
		Compaction:   p.Compaction,
		Lifecycle:    p.Lifecycle,
		Fallback:     p.Fallback,
		ToolCap:      p.ToolCap,
		Heartbeat:    p.Heartbeat,
	}
	id := tools.CallID(ctx)
	if id == "" {
		id = fmt.Sprintf("agent-%p", child)
	}
	call.Kind = kind
	return s.run(ctx, call, child, id, false)
}

// run runs one turn of child, a fresh subagent or one resumed, known afterwards as id.
func (s *Subagents) run(ctx context.Context, call tools.SubagentCall, child *Agent, id string, resumed bool) (tools.SubagentAnswer, error) {
	description, prompt, kind := call.Description, call.Prompt, call.Kind
	// A model an Agent call names is asked for by the subagent's calls, inside the run's
	// budget; one the run cannot switch to is not, and the answer says so.
	note := ""
	if call.Model != "" {
		err := errors.New("this run does not switch models")
		if s.SwitchModel != nil {
			err = s.SwitchModel(call.Model)
		}
		if err != nil {
			note = fmt.Sprintf("model: %q was not used (%v); the subagent ran on your own model.", call.Model, err)
			call.Model = ""
		}
	}
	steps, err := s.reserve()
	if err != nil {
		return tools.SubagentAnswer{}, err
	}
	p := s.Parent
	child.MaxSteps = steps
	child.Parent = tools.CallID(ctx)
	child.Session = nil
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
	turnCtx := ctx
	if call.Model != "" {
		turnCtx = model.WithModelID(ctx, call.Model)
	}
	out, err := child.Turn(turnCtx, event.TurnSpec{Prompt: prompt, Node: description})
	if p.Lifecycle != nil {
		p.Lifecycle.SubagentStop(ctx, kind, out.FinalText)
	}
	st := child.Stats()
	s.release(steps - out.Steps)
	p.addChild(st)
	s.mu.Lock()
	if s.ran == nil {
		s.ran = map[string]ranSubagent{}
	}
	s.ran[id] = ranSubagent{agent: child, kind: kind, model: call.Model}
	s.mu.Unlock()
	ans := tools.SubagentAnswer{ID: id, Text: out.FinalText, Note: note, Kind: kind, Resumed: resumed}
	if err != nil {
		return ans, fmt.Errorf("subagent %q: %w", description, err)
	}
	if out.StopReason != event.StopCompleted {
		return ans, &SubagentStopped{Reason: out.StopReason, Steps: out.Steps}
	}
	return ans, nil
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

// subagentSteps bounds one task; subagentBudget the steps of all tasks of the run together,
// so that a model that keeps delegating cannot run forever.
const subagentSteps, subagentBudget = 100, 500

// ErrSubagentBudget means the run's subagents used up their step budget.
var ErrSubagentBudget = errors.New("the subagent step budget of this run is used up; finish the work yourself")

func (s *Subagents) reserve() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	left := subagentBudget - s.used
	if left <= 0 {
		return 0, ErrSubagentBudget
	}
	n := min(subagentSteps, left)
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

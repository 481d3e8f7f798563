package agent_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/tools"
)

// lifecycle records the calls it gets.
type lifecycle struct {
	mu    sync.Mutex
	calls []string
}

func (l *lifecycle) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, s)
}

func (l *lifecycle) SubagentStart(_ context.Context, kind, prompt string) {
	l.add("start " + kind + ": " + prompt)
}
func (l *lifecycle) SubagentStop(_ context.Context, kind, answer string) {
	l.add("stop " + kind + ": " + answer)
}
func (l *lifecycle) PreCompact(_ context.Context, tokens int) {
	l.add(fmt.Sprintf("pre-compact %t", tokens > 0))
}
func (l *lifecycle) PostCompact(_ context.Context, tokens int) {
	l.add(fmt.Sprintf("post-compact %t", tokens > 0))
}

func TestLifecycleHearsCompaction(t *testing.T) {
	h := newHarness(t, []scripted.Response{
		scripted.Text("First answer."),
		scripted.Text("<current_focus>x</current_focus>"),
		scripted.Text("Second answer."),
	})
	rec := &lifecycle{}
	h.agent.Lifecycle = rec
	h.agent.Compaction = agent.Compaction{MaxContext: 130}
	for _, p := range []string{"one", "two"} {
		if _, err := h.turn(t, p); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(rec.calls, "; "); got != "pre-compact true; post-compact true" {
		t.Errorf("lifecycle calls: %s", got)
	}
}

func TestLifecycleHearsSubagents(t *testing.T) {
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("Agent", `{"description":"look","prompt":"Find main.go","subagent_type":"explore"}`)),
		scripted.Text("It is at the top."),
		scripted.Text("Done."),
	)
	rec := &lifecycle{}
	a := agent.New(agent.Config{
		Model:     model.NewOpenAI(model.Config{BaseURL: srv.URL(), APIKey: "sk-test", Model: "test-model"}),
		Lifecycle: rec,
		MaxSteps:  100,
		Tools: func(d agent.Delegates) []tools.Tool {
			return []tools.Tool{tools.NewAgent(tools.Env{Subagent: d.Subagent})}
		},
		Subagents: func([]tools.Tool) map[string]agent.SubagentKind {
			return map[string]agent.SubagentKind{"explore": {}}
		},
	})
	if _, err := a.Turn(t.Context(), event.TurnSpec{Prompt: "where is main.go?"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rec.calls, "; "); got != "start explore: Find main.go; stop explore: It is at the top." {
		t.Errorf("lifecycle calls: %s", got)
	}
}

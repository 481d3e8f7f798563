package agent

import (
	"testing"

	"github.com/kimi-run/kimi-run/model"
)

// TestUnfinishedTurn pins when a restored conversation's last turn is continued rather than
// asked again (Agent.ResumeTurn; issue 21 #15): only an unanswered turn, only with its own
// prompt, only in the first turn of the run.
func TestUnfinishedTurn(t *testing.T) {
	call := model.Message{Role: model.RoleAssistant, ToolCalls: []model.CallSpec{{ID: "c1", Name: "Shell"}}}
	result := model.Message{Role: model.RoleTool, ToolCallID: "c1", Name: "Shell", Content: "ok"}
	tests := []struct {
		name    string
		history []model.Message
		prompt  string
		turn    int
		off     bool
		steps   int
		ok      bool
	}{
		{name: "killed after two steps", history: []model.Message{{Role: model.RoleUser, Content: "task"}, call, result, call, result}, prompt: "task", turn: 1, steps: 2, ok: true},
		{name: "failed before any reply", history: []model.Message{{Role: model.RoleUser, Content: "task"}}, prompt: "task", turn: 1, ok: true},
		{name: "checkpoint marker after the prompt", history: []model.Message{{Role: model.RoleUser, Content: "task"}, {Role: model.RoleUser, Content: "<system>CHECKPOINT 2</system>"}, call, result},
			prompt: "task", turn: 1, steps: 1, ok: true},
		{name: "answered", history: []model.Message{{Role: model.RoleUser, Content: "task"}, call, result, {Role: model.RoleAssistant, Content: "done"}}, prompt: "task", turn: 1},
		{name: "another prompt", history: []model.Message{{Role: model.RoleUser, Content: "task"}, call, result}, prompt: "other task", turn: 1},
		{name: "second turn of the run", history: []model.Message{{Role: model.RoleUser, Content: "task"}, call, result}, prompt: "task", turn: 2},
		{name: "not asked for", history: []model.Message{{Role: model.RoleUser, Content: "task"}, call, result}, prompt: "task", turn: 1, off: true},
		{name: "empty conversation", prompt: "task", turn: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &Agent{ResumeTurn: !tc.off, history: append([]model.Message{{Role: model.RoleSystem, Content: "sys"}}, tc.history...)}
			steps, ok := a.unfinishedTurn(tc.turn, tc.prompt)
			if ok != tc.ok || (ok && steps != tc.steps) {
				t.Errorf("unfinishedTurn = %d, %v; want %d, %v", steps, ok, tc.steps, tc.ok)
			}
		})
	}
}

package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestSetTodoList(t *testing.T) {
	var mu sync.Mutex
	var got [][]Todo
	tool := NewSetTodoList(Env{Todos: func(ts []Todo) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, ts)
	}})
	res := runSearchTool(t, tool, map[string]any{"todos": []map[string]string{
		{"title": "Read the failing test", "status": "done"},
		{"title": " Fix the parser ", "status": "in_progress"},
		{"title": "Update the docs", "status": "pending"},
	}})
	want := "Todo list updated: 1 done, 1 in progress, 1 pending.\n" +
		"[x] Read the failing test\n[>] Fix the parser\n[ ] Update the docs"
	if res.IsError || res.Output != want {
		t.Errorf("got %+v, want output:\n%s", res, want)
	}
	wantTodos := []Todo{{"Read the failing test", "done"}, {"Fix the parser", "in_progress"}, {"Update the docs", "pending"}}
	if len(got) != 1 || !slices.Equal(got[0], wantTodos) {
		t.Errorf("Env.Todos received %+v, want %+v", got, wantTodos)
	}

	res = runSearchTool(t, tool, map[string]any{"todos": []map[string]string{}})
	if res.IsError || res.Output != "The todo list is now empty." || len(got) != 2 || len(got[1]) != 0 {
		t.Errorf("clearing: got %+v, updates %v", res, got)
	}
}

func TestSetTodoListRejectsBadItems(t *testing.T) {
	called := false
	tool := NewSetTodoList(Env{Todos: func([]Todo) { called = true }})
	tests := []struct {
		name  string
		todos any
		want  string
	}{
		{"empty title", []map[string]string{{"title": "ok", "status": "done"}, {"title": "  ", "status": "pending"}}, "todo 2 has an empty title"},
		{"unknown status", []map[string]string{{"title": "x", "status": "blocked"}}, `status "blocked"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{}
			if tt.todos != nil {
				args["todos"] = tt.todos
			}
			res := runSearchTool(t, tool, args)
			if !res.IsError || !strings.Contains(res.Output, tt.want) {
				t.Errorf("got %+v, want an error containing %q", res, tt.want)
			}
		})
	}
	if called {
		t.Error("Env.Todos was called for an invalid list")
	}
}

func TestSetTodoListWithoutCallback(t *testing.T) {
	res := runSearchTool(t, NewSetTodoList(Env{}), map[string]any{"todos": []map[string]string{{"title": "a", "status": "pending"}}})
	if res.IsError || !strings.HasSuffix(res.Output, "[ ] a") {
		t.Errorf("got %+v", res)
	}
}

// TestSetTodoListWithoutTodos: as in Kimi CLI, a call without todos, or with null, shows
// the current plan and changes nothing; an empty list clears it.
func TestSetTodoListWithoutTodos(t *testing.T) {
	var updates int
	tool := NewSetTodoList(Env{Todos: func([]Todo) { updates++ }})
	if res := runSearchTool(t, tool, map[string]any{}); res.IsError || !strings.Contains(res.Output, "empty; nothing was changed") {
		t.Errorf("before any plan: %+v", res)
	}
	runSearchTool(t, tool, map[string]any{"todos": []map[string]string{{"title": "build", "status": "done"}, {"title": "test", "status": "pending"}}})
	for _, args := range []string{`{}`, `{"todos": null}`} {
		res, err := tool.Run(context.Background(), json.RawMessage(args))
		if err != nil || res.IsError || res.Output != "The current todo list (unchanged):\n[x] build\n[ ] test" {
			t.Errorf("%s: got %+v, %v", args, res, err)
		}
	}
	if updates != 1 {
		t.Errorf("Env.Todos called %d times, want 1 (the calls without todos change nothing)", updates)
	}
	if res := runSearchTool(t, tool, map[string]any{"todos": []any{}}); res.Output != "The todo list is now empty." || updates != 2 {
		t.Errorf("clearing: %+v, %d updates", res, updates)
	}
}

package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

const todoDescription = `Set the plan for the current task as a checklist. Each call replaces the whole
list, so send every item each time with its current status: pending, in_progress or done.
Keep items short and concrete, have at most one in_progress at a time, and mark an item
done as soon as it is finished. Use it for tasks with several steps; skip it for simple ones.`

// todoItem mirrors Todo with its own schema tags; an unnamed struct keeps the schema
// inline, without a "$defs" reference that some providers reject.
type todoItem = struct {
	Title  string `json:"title" minLength:"1" description:"what to do, in a few words"`
	Status string `json:"status" enum:"pending,in_progress,done" description:"pending, in_progress or done"`
}

// todoArgs are the arguments of the SetTodoList tool.
type todoArgs struct {
	Todos []todoItem `json:"todos,omitempty" null:"true" default:"null" description:"the complete plan, in order; leave it out (or null) to see the current plan unchanged"`
}

// todoMarks are the checklist marks of each status.
var todoMarks = map[string]string{"pending": "[ ]", "in_progress": "[>]", "done": "[x]"}

// TodoMark returns the checklist mark of a todo status: "[ ]" pending, "[>]" in progress,
// "[x]" done, "[?]" anything else. The plan the model reads back and the plan shown on
// stderr use these same marks.
func TodoMark(status string) string {
	if m, ok := todoMarks[status]; ok {
		return m
	}
	return "[?]"
}

// NewSetTodoList returns the SetTodoList tool. Every valid update is passed to env.Todos
// when it is set. A call without todos (or with null) shows the current plan and changes
// nothing, as in Kimi CLI; an empty list clears it.
func NewSetTodoList(env Env) Tool {
	var mu sync.Mutex
	var current []Todo
	return New("SetTodoList", todoDescription, Facts{Destructive: true}, func(_ context.Context, in todoArgs) (Result, error) {
		mu.Lock()
		defer mu.Unlock()
		if in.Todos == nil {
			return Text(showTodos(current)), nil
		}
		todos := make([]Todo, 0, len(in.Todos))
		for i, it := range in.Todos {
			t := Todo{Title: strings.TrimSpace(it.Title), Status: strings.TrimSpace(it.Status)}
			if t.Title == "" {
				return Errorf("todo %d has an empty title", i+1), nil
			}
			if _, ok := todoMarks[t.Status]; !ok {
				return Errorf("todo %d (%q) has status %q; use pending, in_progress or done", i+1, t.Title, it.Status), nil
			}
			todos = append(todos, t)
		}
		current = todos
		if env.Todos != nil {
			env.Todos(append([]Todo(nil), todos...))
		}
		return Text(renderTodos(todos)).WithKimi("Todo list updated", "Todo list updated"), nil
	})
}

// showTodos shows the plan unchanged, for a call that sets none.
func showTodos(todos []Todo) string {
	if len(todos) == 0 {
		return "The todo list is empty; nothing was changed."
	}
	var b strings.Builder
	b.WriteString("The current todo list (unchanged):\n")
	for _, t := range todos {
		fmt.Fprintf(&b, "%s %s\n", TodoMark(t.Status), t.Title)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// renderTodos shows the plan back to the model as a checklist with a tally.
func renderTodos(todos []Todo) string {
	if len(todos) == 0 {
		return "The todo list is now empty."
	}
	count := map[string]int{}
	var b strings.Builder
	for _, t := range todos {
		count[t.Status]++
	}
	fmt.Fprintf(&b, "Todo list updated: %d done, %d in progress, %d pending.\n",
		count["done"], count["in_progress"], count["pending"])
	for _, t := range todos {
		fmt.Fprintf(&b, "%s %s\n", TodoMark(t.Status), t.Title)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

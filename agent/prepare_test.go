package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/tools"
)

// Prepare is told of each tool the model calls, from the stream, before its call runs (the
// run starts the launcher meanwhile, issue 26); a name outside the toolset tells it
// nothing.
func TestPrepareBeforeTheCallRuns(t *testing.T) {
	var mu sync.Mutex
	var prepared []string
	wasPrepared := func(name string) bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(prepared, name)
	}
	var ranUnprepared []string
	check := func(name string) func(context.Context, json.RawMessage) (tools.Result, error) {
		return func(context.Context, json.RawMessage) (tools.Result, error) {
			if !wasPrepared(name) {
				mu.Lock()
				ranUnprepared = append(ranUnprepared, name)
				mu.Unlock()
			}
			return tools.Text("ok"), nil
		}
	}
	shell, read := &fakeTool{name: "Shell"}, &fakeTool{name: "ReadFile"}
	shell.run, read.run = check("Shell"), check("ReadFile")
	a := &agent.Agent{
		Model:    fakeModel(&fakeProvider{script: []sse{calls("Shell", "NoSuchTool", "ReadFile"), answer("done")}}, time.Minute),
		Tools:    []tools.Tool{shell, read},
		MaxSteps: 10,
		Retry:    agent.RetryPolicy{Attempts: 1},
		Prepare: func(t tools.Tool) {
			mu.Lock()
			prepared = append(prepared, t.Name())
			mu.Unlock()
		},
	}
	if _, err := a.Turn(context.Background(), event.TurnSpec{Prompt: "x"}); err != nil {
		t.Fatal(err)
	}
	if len(ranUnprepared) > 0 || len(shell.got()) != 1 || len(read.got()) != 1 {
		t.Errorf("ran before Prepare: %q (Shell ran %d, ReadFile %d times)", ranUnprepared, len(shell.got()), len(read.got()))
	}
	if slices.Contains(prepared, "NoSuchTool") || !slices.Contains(prepared, "Shell") {
		t.Errorf("prepared %q, want the toolset's tools only", prepared)
	}
}

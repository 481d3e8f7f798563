package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/tools"
)

// calls is a whole reply that makes one tool call per name, ids c1, c2, ...
func calls(names ...string) sse {
	return sse{stream: func(_ context.Context, w io.Writer) {
		for i, n := range names {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%d,\"id\":\"c%d\",\"type\":\"function\",\"function\":{\"name\":%q,\"arguments\":\"{}\"}}]},\"finish_reason\":null}]}\n\n", i, i+1, n)
		}
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
	}}
}

// TestHeartbeatOnTheFakeClock (issue 32 #2): a tool call that runs 35 s, printing 5 bytes at
// 10 s, is reported at 15 s and 30 s with what it printed and when, never after its result;
// a quick call in the same reply is not reported at all. The bubble's clock makes every
// figure exact.
func TestHeartbeatOnTheFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := &fakeTool{name: "Slow", run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
			time.Sleep(10 * time.Second)
			tools.OutputMeterOf(ctx).Write([]byte("hello"))
			time.Sleep(25 * time.Second)
			return tools.Text("done"), nil
		}}
		quick := &fakeTool{name: "Quick"}
		sink := &testkit.Recorder{}
		a := &agent.Agent{
			Model:     fakeModel(&fakeProvider{script: []sse{calls("Slow", "Quick"), answer("ok")}}, time.Minute),
			Tools:     []tools.Tool{slow, quick},
			Sink:      sink,
			MaxSteps:  10,
			Retry:     agent.RetryPolicy{Attempts: 1},
			Heartbeat: 15 * time.Second,
		}
		if _, err := a.Turn(context.Background(), event.TurnSpec{Prompt: "x"}); err != nil {
			t.Fatal(err)
		}
		var got []event.ToolProgress
		resultAt := -1
		for i, e := range sink.Events() {
			switch d := e.Data.(type) {
			case event.ToolProgress:
				if resultAt >= 0 {
					t.Errorf("tool_progress after the slow call's tool_result: %+v", d)
				}
				got = append(got, d)
			case event.ToolResult:
				if d.Name == "Slow" {
					resultAt = i
				}
			}
		}
		want := []event.ToolProgress{
			{Step: 1, ID: "c1", Name: "Slow", ElapsedMS: 15000, OutputBytes: 5, SinceOutputMS: 5000},
			{Step: 1, ID: "c1", Name: "Slow", ElapsedMS: 30000, OutputBytes: 5, SinceOutputMS: 20000},
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("tool_progress events:\n got %+v\nwant %+v", got, want)
		}
	})
}

// TestHeartbeatSilentCall: a call that prints nothing counts its silence from its start;
// Heartbeat 0 reports nothing.
func TestHeartbeatSilentCall(t *testing.T) {
	for _, every := range []time.Duration{0, 20 * time.Second} {
		t.Run(every.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				slow := &fakeTool{name: "Slow", run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
					time.Sleep(50 * time.Second)
					return tools.Text("done"), nil
				}}
				sink := &testkit.Recorder{}
				a := &agent.Agent{
					Model:     fakeModel(&fakeProvider{script: []sse{calls("Slow"), answer("ok")}}, time.Minute),
					Tools:     []tools.Tool{slow},
					Sink:      sink,
					MaxSteps:  10,
					Retry:     agent.RetryPolicy{Attempts: 1},
					Heartbeat: every,
				}
				if _, err := a.Turn(context.Background(), event.TurnSpec{Prompt: "x"}); err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, e := range sink.Of(event.TypeToolProgress) {
					d := e.Data.(event.ToolProgress)
					got = append(got, fmt.Sprintf("%d/%d/%d", d.ElapsedMS, d.OutputBytes, d.SinceOutputMS))
				}
				want := "[]"
				if every > 0 {
					want = "[20000/0/20000 40000/0/40000]"
				}
				if fmt.Sprint(got) != want {
					t.Errorf("tool_progress (elapsed/bytes/since) = %v, want %s", got, want)
				}
			})
		})
	}
}

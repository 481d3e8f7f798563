package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/event"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/tools"
)

// TestToolStartsBeforeTheReplyEnds streams one complete tool call and then holds the reply
// open until that tool has run. A loop that waited for the whole reply would stall here for
// ten seconds and then see the tool start after the stream ended.
func TestToolStartsBeforeTheReplyEnds(t *testing.T) {
	ran := make(chan struct{})
	step := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		step++
		send := func(s string) { fmt.Fprint(w, "data: "+s+"\n\n"); w.(http.Flusher).Flush() }
		if step > 1 {
			send(`{"choices":[{"index":0,"delta":{"content":"done"},"finish_reason":"stop"}]}`)
			send("[DONE]")
			return
		}
		send(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"Probe","arguments":"{}"}}]}}]}`)
		send(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"Probe","arguments":"{\"n\":2}"}}]}}]}`)
		select {
		case <-ran:
		case <-time.After(10 * time.Second):
		}
		send(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
		send("[DONE]")
	}))
	defer srv.Close()

	streamDone := make(chan struct{})
	var early bool
	probe := &fakeTool{name: "Probe"}
	probe.run = func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		if string(args) == "{}" {
			select {
			case <-streamDone:
			default:
				early = true
			}
			close(ran)
		}
		return tools.Text("probed"), nil
	}
	sink := event.SinkFunc(func(e event.Event) {
		if e.Type() == event.TypeUsage {
			select {
			case <-streamDone:
			default:
				close(streamDone)
			}
		}
	})
	a := &agent.Agent{
		Model: model.NewOpenAI(model.Config{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m"}),
		Tools: []tools.Tool{probe},
		Sink:  sink,
		Retry: agent.RetryPolicy{Timer: agent.NoWait},
	}
	if _, err := a.Turn(t.Context(), event.TurnSpec{Prompt: "probe"}); err != nil {
		t.Fatal(err)
	}
	if !early {
		t.Error("the first tool call ran only after the reply had finished streaming")
	}
}

package agent_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/tools"
)

// TestStepsReuseOneConnection runs several steps against a server that counts connections.
// Against a real provider every new connection is a TLS handshake, so a client that drops
// the connection after each stream pays it at every step.
func TestStepsReuseOneConnection(t *testing.T) {
	var conns atomic.Int32
	step := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		step++
		if step <= 5 {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c%d\",\"type\":\"function\",\"function\":{\"name\":\"Probe\",\"arguments\":\"{\\\"n\\\":%d}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n", step, step)
		} else {
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"done\"},\"finish_reason\":\"stop\"}]}\n\n")
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2,\"total_tokens\":12}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	a := &agent.Agent{
		Model:    model.NewOpenAI(model.Config{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m"}),
		Tools:    []tools.Tool{&fakeTool{name: "Probe"}},
		MaxSteps: 100,
		Retry:    agent.RetryPolicy{Timer: agent.NoWait},
	}
	if _, err := a.Turn(t.Context(), event.TurnSpec{Prompt: "go"}); err != nil {
		t.Fatal(err)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("6 model calls used %d connections, want 1", n)
	}
}

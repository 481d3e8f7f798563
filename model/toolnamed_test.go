package model_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
)

// The protocols a tool call streams in, with the name in one event and the arguments
// after it; Gemini sends each call whole.
var streamedCalls = []string{"kimi", "anthropic", "openai_responses"}

// ToolNamed tells the run which tool the model is calling as soon as the stream names it,
// so that the launcher can start while the rest streams (issue 26): before the call is
// complete, while the stream still hangs after its name and arguments.
func TestToolNamedBeforeTheCallEnds(t *testing.T) {
	for _, protocol := range streamedCalls {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Reply(scripted.Say("Looking."), scripted.Call("Shell", `{"command":"ls -la"}`), scripted.Hang()))
			m, err := model.New(model.Config{Protocol: protocol, BaseURL: srv.URL(), APIKey: "k", Model: "m", IdleTimeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			named := make(chan string, 8)
			done := make(chan struct{})
			calls := 0
			go func() {
				defer close(done)
				_, _ = m.Stream(ctx, model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}, model.Handler{
					ToolNamed: func(name string) { named <- name },
					ToolCall:  func(model.CallSpec) { calls++ },
				})
			}()
			select {
			case name := <-named:
				if name != "Shell" {
					t.Errorf("named %q, want Shell", name)
				}
			case <-time.After(30 * time.Second):
				t.Error("the call was never named while the stream hung")
			}
			cancel()
			<-done
			if calls != 0 {
				t.Errorf("%d calls handed out complete from a stream that never ended", calls)
			}
		})
	}
}

// Every protocol names each call before it hands it out complete, Gemini's included.
func TestToolNamedPrecedesToolCall(t *testing.T) {
	for _, protocol := range append(slices.Clone(streamedCalls), "gemini") {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Reply(scripted.Call("Shell", `{"command":"ls"}`), scripted.Call("ReadFile", `{"path":"a.go"}`)))
			m, err := model.New(model.Config{Protocol: protocol, BaseURL: srv.URL(), APIKey: "k", Model: "m", IdleTimeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			var log []string
			_, err = m.Stream(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}, model.Handler{
				ToolNamed: func(name string) { log = append(log, "named "+name) },
				ToolCall:  func(c model.CallSpec) { log = append(log, "call "+c.Name) },
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"Shell", "ReadFile"} {
				n, c := slices.Index(log, "named "+name), slices.Index(log, "call "+name)
				if n < 0 || c < 0 || n > c {
					t.Errorf("%s: %q, want it named before it is handed out", name, log)
				}
			}
		})
	}
}

package model_test

import (
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/tools"
)

// BenchmarkStepRequest is one step's model call as an agent makes it, over loopback HTTP
// against a scripted server: a short history and every built-in tool's definition, which
// are most of a request body. Its B/op and allocs/op grow with what a step sends; its
// ns/op is what the client spends on the step besides the server (the tools' encoding was
// most of it, until a client kept it from one request to the next).
//
//	go test ./model/ -run '^$' -bench StepRequest -benchmem
func BenchmarkStepRequest(b *testing.B) {
	srv := scripted.New(b, scripted.Reply(scripted.Say("done")).Forever())
	m := model.NewOpenAI(model.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", IdleTimeout: time.Minute})
	req := model.Request{Tools: tools.AllBuiltins(), Messages: []model.Message{
		{Role: model.RoleSystem, Content: "You are a coding agent."},
		{Role: model.RoleUser, Content: "Say that the benchmark is done."},
	}}
	b.ReportAllocs()
	for b.Loop() {
		if r, err := m.Stream(b.Context(), req, model.Handler{}); err != nil || r.Text != "done" {
			b.Fatalf("reply %q, %v", r.Text, err)
		}
	}
}

package model_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/tools"
)

// TestToolDefinitionsFollowTheTools: a client sends each request the tools it is given,
// as they are then, though it keeps their encoding from one request to the next: a
// description that changed, a tool left out or added, the same tools in another order, a
// request without tools.
func TestToolDefinitionsFollowTheTools(t *testing.T) {
	srv := scripted.New(t, scripted.Reply(scripted.Say("done")).Forever())
	m := model.NewOpenAI(model.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", IdleTimeout: time.Minute})
	tool := func(name, desc string) tools.Tool {
		type args struct {
			X string `json:"x" description:"an argument"`
		}
		return tools.New(name, desc, tools.Facts{}, func(context.Context, args) (tools.Result, error) { return tools.Text(""), nil })
	}
	steps := []struct {
		tools   []tools.Tool
		noTools bool
		want    []string // name: description, as sent
	}{
		{tools: []tools.Tool{tool("Alpha", "first"), tool("Beta", "beta")}, want: []string{"Alpha: first", "Beta: beta"}},
		{tools: []tools.Tool{tool("Alpha", "first"), tool("Beta", "beta")}, want: []string{"Alpha: first", "Beta: beta"}},
		{tools: []tools.Tool{tool("Alpha", "second"), tool("Beta", "beta")}, want: []string{"Alpha: second", "Beta: beta"}},
		{tools: []tools.Tool{tool("Beta", "beta")}, want: []string{"Beta: beta"}},
		{tools: []tools.Tool{tool("Beta", "beta"), tool("Gamma", "<&>")}, want: []string{"Beta: beta", "Gamma: <&>"}},
		{tools: []tools.Tool{tool("Gamma", "<&>"), tool("Beta", "beta")}, want: []string{"Gamma: <&>", "Beta: beta"}},
		{tools: []tools.Tool{tool("Beta", "beta")}, noTools: true},
		{},
	}
	for i, s := range steps {
		req := model.Request{Tools: s.tools, NoTools: s.noTools, Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}
		if r, err := m.Stream(t.Context(), req, model.Handler{}); err != nil || r.Text != "done" {
			t.Fatalf("step %d: reply %q, %v", i, r.Text, err)
		}
		body := srv.Requests()[i].Body
		sent, _ := body["tools"].([]any)
		var got []string
		for _, d := range sent {
			f, _ := d.(map[string]any)["function"].(map[string]any)
			got = append(got, f["name"].(string)+": "+f["description"].(string))
		}
		if !slices.Equal(got, s.want) {
			t.Errorf("step %d sent the tools %q, want %q", i, got, s.want)
		}
		if _, ok := body["tools"]; ok != (len(s.want) > 0) {
			t.Errorf("step %d: a tools field %v, want %v", i, ok, len(s.want) > 0)
		}
	}
}

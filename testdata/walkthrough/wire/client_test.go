package walkwire_test

import (
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/model/cassette"
	"github.com/kimi-run/kimi-run/model/walkwire"
)

// A reply with thinking, text, a tool call and usage arrives whole, and the next request
// carries the call and its result back, as a cassette reads them.
func TestWalkwireReplyAndRequest(t *testing.T) {
	srv := scripted.New(t,
		scripted.Reply(scripted.Think("hmm"), scripted.Say("Looking."), scripted.Call("Shell", `{"command":"ls"}`), scripted.Usage(100, 20, 40)),
		scripted.Text("Done."))
	m := walkwire.New(model.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", IdleTimeout: time.Minute})
	msgs := []model.Message{{Role: model.RoleUser, Content: "list"}}
	reply, err := m.Stream(t.Context(), model.Request{Messages: msgs}, model.Handler{})
	if err != nil || reply.Text != "Looking." || reply.Reasoning != "hmm" || len(reply.ToolCalls) != 1 || reply.ToolCalls[0].Name != "Shell" {
		t.Fatalf("reply %+v, %v", reply, err)
	}
	if u := reply.Usage; u.InputTokens != 100 || u.OutputTokens != 20 || u.CachedTokens != 40 {
		t.Errorf("usage %+v", u)
	}
	msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: reply.Text, Reasoning: reply.Reasoning, ToolCalls: reply.ToolCalls},
		model.Message{Role: model.RoleTool, ToolCallID: reply.ToolCalls[0].ID, Content: "a.go"})
	if reply, err = m.Stream(t.Context(), model.Request{Messages: msgs}, model.Handler{}); err != nil || reply.Text != "Done." {
		t.Fatalf("reply %+v, %v", reply, err)
	}
	read, err := cassette.ReadChat(srv.Requests()[1].Raw)
	if err != nil || len(read) != 3 || read[1].ToolCalls[0].Function.Name != "Shell" || read[2].ToolCallID != read[1].ToolCalls[0].ID {
		t.Errorf("the second request reads as %+v, %v", read, err)
	}
}

package scripted_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/model/anthropic"
)

// anthropicClient is the real Anthropic client of srv.
func anthropicClient(t *testing.T, srv *scripted.Server) model.Model {
	t.Helper()
	return anthropic.New(model.Config{Protocol: "anthropic", BaseURL: srv.URL(), APIKey: "k", Model: "claude-test"})
}

func ask(text string) model.Request {
	return model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: text}}}
}

// A scripted reply is played in the Messages API's shape on /v1/messages and reads as the
// same reply: thinking with its signature, text, tool calls, usage (the cached tokens
// apart) and the finish reason.
func TestAnthropicDialect(t *testing.T) {
	srv := scripted.New(t, scripted.Reply(scripted.Think("plan it"), scripted.Say("Looking now."),
		scripted.Call("Shell", `{"command":"ls"}`), scripted.CallID("call_2", "Glob", `{"pattern":"*.go"}`),
		scripted.Usage(100, 30, 40)))
	var thought, text strings.Builder
	reply, err := anthropicClient(t, srv).Stream(context.Background(), ask("hi"), model.Handler{
		Text: func(s string) { text.WriteString(s) }, Thinking: func(s string) { thought.WriteString(s) }})
	if err != nil {
		t.Fatal(err)
	}
	if thought.String() != "plan it" || text.String() != "Looking now." || reply.FinishReason != "tool_calls" {
		t.Errorf("thinking %q, text %q, finish %q", thought.String(), text.String(), reply.FinishReason)
	}
	if len(reply.ToolCalls) != 2 || reply.ToolCalls[0].Arguments != `{"command":"ls"}` || reply.ToolCalls[1].ID != "call_2" || reply.ToolCalls[1].Name != "Glob" {
		t.Errorf("calls = %+v", reply.ToolCalls)
	}
	if want := (model.TokenUsage{InputTokens: 100, OutputTokens: 30, CachedTokens: 40}); reply.Usage != want {
		t.Errorf("usage = %+v, want %+v", reply.Usage, want)
	}
	if !strings.Contains(string(reply.ReasoningDetails), scripted.ThinkingSignature("plan it")) {
		t.Errorf("the thinking block's signature is not kept: %s", reply.ReasoningDetails)
	}
}

// native is a stream of the given data events, as a recording holds them.
func native(t *testing.T, events ...string) scripted.Response {
	t.Helper()
	text := "-- native --\nHTTP/1.1 200 OK\nContent-Type: text/event-stream\n\n"
	for _, e := range events {
		text += "data: " + e + "\n\n"
	}
	rs, err := scripted.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return rs[0]
}

// Finish reasons, cuts, error lines, floods and recorded streams in the dialect.
func TestAnthropicDialectEdges(t *testing.T) {
	tests := []struct {
		name   string
		resp   scripted.Response
		finish string
		err    func(error) bool
		text   string
	}{
		{name: "length", resp: scripted.Reply(scripted.Say("a"), scripted.Finish("length")), finish: "length", text: "a"},
		{name: "content filter is a refusal", resp: scripted.Reply(scripted.Say("a"), scripted.Finish("content_filter")),
			err: func(err error) bool { var fe *model.FinishError; return errors.As(err, &fe) && fe.Reason == "refusal" }},
		{name: "cut", resp: scripted.Reply(scripted.Say("half"), scripted.Cut()),
			err: func(err error) bool { return errors.Is(err, model.ErrIncompleteStream) }},
		{name: "error line", resp: scripted.Reply(scripted.Say("a"), scripted.Raw(`data: {"error":{"type":"overloaded_error","message":"Overloaded"}}`+"\n\n")),
			err: func(err error) bool {
				var pe *model.ProviderError
				return errors.As(err, &pe) && pe.StatusCode == 0 && pe.Type == "overloaded_error" && model.Retryable(err)
			}},
		{name: "flood", resp: scripted.Reply(scripted.SayBytes(25*4096, 4096)), finish: "stop", text: strings.Repeat("x", 25*4096)},
		{name: "keep-alives", resp: scripted.Reply(scripted.KeepAlive(50), scripted.Say("ok")), finish: "stop", text: "ok"},
		{name: "native events pass as they are", resp: native(t,
			`{"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"native"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`,
			`{"type":"message_stop"}`), finish: "stop", text: "native"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := scripted.New(t, tt.resp)
			reply, err := anthropicClient(t, srv).Stream(context.Background(), ask("x"), model.Handler{})
			if tt.err != nil {
				if !tt.err(err) {
					t.Fatalf("err = %v (%T)", err, err)
				}
				return
			}
			if err != nil || reply.FinishReason != tt.finish || reply.Text != tt.text {
				t.Fatalf("reply finish %q, %d bytes of text, err %v", reply.FinishReason, len(reply.Text), err)
			}
		})
	}
}

// What an Anthropic client sent reads as chat-completions messages.
func TestAnthropicRequestAsMessages(t *testing.T) {
	srv := scripted.New(t, scripted.Text("ok"), scripted.Text("ok"))
	c := anthropicClient(t, srv)
	first, err := c.Stream(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleSystem, Content: "be brief"}, {Role: model.RoleUser, Content: "hi"}}}, model.Handler{})
	if err != nil {
		t.Fatal(err)
	}
	conv := []model.Message{
		{Role: model.RoleSystem, Content: "be brief"},
		{Role: model.RoleUser, Content: "hi"},
		{Role: model.RoleAssistant, Content: first.Text, ToolCalls: []model.CallSpec{{ID: "toolu_1", Name: "Shell", Arguments: `{"command":"ls"}`}}},
		{Role: model.RoleTool, ToolCallID: "toolu_1", Content: "a.go"},
		{Role: model.RoleUser, Content: "and?"},
	}
	if _, err := c.Stream(context.Background(), model.Request{Messages: conv}, model.Handler{}); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[1]
	if req.Path != scripted.AnthropicPath {
		t.Errorf("path = %s", req.Path)
	}
	var roles []string
	for _, m := range req.Messages() {
		roles = append(roles, m["role"].(string))
	}
	if !reflect.DeepEqual(roles, []string{"system", "user", "assistant", "tool", "user"}) {
		t.Fatalf("roles = %v", roles)
	}
	asst := req.MessagesOf("assistant")[0]
	calls := asst["tool_calls"].([]any)
	fn := calls[0].(map[string]any)["function"].(map[string]any)
	if asst["content"] != "ok" || fn["name"] != "Shell" || fn["arguments"] != `{"command":"ls"}` {
		t.Errorf("assistant = %v", asst)
	}
	if tool := req.MessagesOf("tool")[0]; tool["tool_call_id"] != "toolu_1" || tool["content"] != "a.go" {
		t.Errorf("tool = %v", tool)
	}
}

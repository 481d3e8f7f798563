package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/kimi-run/kimi-run/model"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/tools"
)

func TestAnthropicText(t *testing.T) {
	body := sse(append(append([]string{start(12, 30, 400), evPing}, textBlock(0, "Hello", ", world")...),
		stopWith("end_turn", 9), evStop)...)
	f := newFakeMessages(t, fakeAnswer{body: body})
	var rec recorder
	reply, err := f.client(nil).Stream(context.Background(), userRequest("hi"), rec.handler())
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "Hello, world" || rec.text.String() != "Hello, world" || reply.FinishReason != "stop" {
		t.Errorf("reply = %+v, streamed %q", reply, rec.text.String())
	}
	// The prompt is input_tokens plus what was read from and written to the cache.
	want := model.TokenUsage{InputTokens: 442, OutputTokens: 9, CachedTokens: 400, CacheWriteTokens: 30}
	if reply.Usage != want {
		t.Errorf("usage = %+v, want %+v", reply.Usage, want)
	}
	if reply.ReasoningField != "" || reply.ReasoningDetails != nil {
		t.Errorf("a text reply stores blocks: %s %s", reply.ReasoningField, reply.ReasoningDetails)
	}
	req := f.requests()[0]
	if req.path != "/v1/messages" {
		t.Errorf("path = %s", req.path)
	}
	for k, v := range map[string]string{"X-Api-Key": "sk-ant-test", "Anthropic-Version": Version, "Content-Type": "application/json"} {
		if got := req.header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if req.header.Get("Authorization") != "" || req.header.Get("Anthropic-Beta") != "" {
		t.Errorf("unexpected headers: %v", req.header)
	}
	if req.body["model"] != "claude-sonnet-4-20250514" || req.body["max_tokens"] != float64(MaxTokens) || req.body["stream"] != true {
		t.Errorf("body = %v", req.body)
	}
	system := req.body["system"].([]any)[0].(map[string]any)
	if system["text"] != "be brief" || system["cache_control"] == nil {
		t.Errorf("system = %v", system)
	}
	msgs := req.body["messages"].([]any)
	if len(msgs) != 1 || !reflect.DeepEqual(msgs[0], map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "hi", "cache_control": map[string]any{"type": "ephemeral"}}}}) {
		t.Errorf("messages = %v", msgs)
	}
	if _, ok := req.body["thinking"]; ok {
		t.Errorf("thinking sent without the switch: %v", req.body["thinking"])
	}
}

// A thinking turn with a tool call: the thought streams as thinking, the call is complete
// at its block's end, and the next request sends the turn back whole: the thinking block
// with its signature, then the call, then the result in a user turn.
func TestAnthropicThinkingToolTurnGoesBack(t *testing.T) {
	first := message("tool_use",
		thinkingBlock(0, "c2lnbmF0dXJl", "I should ", "list files."),
		textBlock(1, "Listing."),
		toolBlock(2, "toolu_01", "Shell", `{"comm`, `and": "ls"}`))
	f := newFakeMessages(t, fakeAnswer{body: first}, fakeAnswer{body: message("end_turn", textBlock(0, "done"))})
	on := true
	c := f.client(func(c *model.Config) { c.Thinking = &on })
	var rec recorder
	req := userRequest("list")
	reply, err := c.Stream(context.Background(), req, rec.handler())
	if err != nil {
		t.Fatal(err)
	}
	if rec.thinking.String() != "I should list files." || reply.Reasoning != "I should list files." {
		t.Errorf("thinking = %q / %q", rec.thinking.String(), reply.Reasoning)
	}
	wantCall := model.CallSpec{ID: "toolu_01", Name: "Shell", Arguments: `{"command": "ls"}`}
	if !reflect.DeepEqual(reply.ToolCalls, []model.CallSpec{wantCall}) || !reflect.DeepEqual(rec.calls, []model.CallSpec{wantCall}) {
		t.Errorf("calls = %+v, handed out %+v", reply.ToolCalls, rec.calls)
	}
	if reply.FinishReason != "tool_calls" || reply.ReasoningField != ReasoningField {
		t.Errorf("reply = %+v", reply)
	}
	hreq := f.requests()[0]
	if hreq.header.Get("Anthropic-Beta") != interleavedThinking {
		t.Errorf("beta = %q", hreq.header.Get("Anthropic-Beta"))
	}
	if got := hreq.body["thinking"]; !reflect.DeepEqual(got, map[string]any{"type": "enabled", "budget_tokens": float64(MaxTokens * 3 / 4)}) {
		t.Errorf("thinking = %v", got)
	}

	// The loop appends the turn and the result; the next request carries them back.
	req.Messages = append(req.Messages,
		model.Message{Role: model.RoleAssistant, Content: reply.Text, Reasoning: reply.Reasoning, ToolCalls: reply.ToolCalls,
			ReasoningField: reply.ReasoningField, ReasoningDetails: reply.ReasoningDetails},
		model.Message{Role: model.RoleTool, ToolCallID: "toolu_01", Name: "Shell", Content: "a.go\n"},
		model.Message{Role: model.RoleUser, Content: "and now?"})
	if _, err := c.Stream(context.Background(), req, model.Handler{}); err != nil {
		t.Fatal(err)
	}
	if th, _ := f.requests()[1].body["thinking"].(map[string]any); th["type"] != "enabled" {
		t.Errorf("thinking in the tool loop = %v", f.requests()[1].body["thinking"])
	}
	msgs := f.requests()[1].body["messages"].([]any)
	want := []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "list"}}},
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "thinking", "thinking": "I should list files.", "signature": "c2lnbmF0dXJl"},
			map[string]any{"type": "text", "text": "Listing."},
			map[string]any{"type": "tool_use", "id": "toolu_01", "name": "Shell", "input": map[string]any{"command": "ls"}},
		}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_01", "content": "a.go\n"},
			map[string]any{"type": "text", "text": "and now?", "cache_control": map[string]any{"type": "ephemeral"}},
		}},
	}
	if !reflect.DeepEqual(msgs, want) {
		got, _ := json.MarshalIndent(msgs, "", " ")
		t.Errorf("messages sent back:\n%s", got)
	}
}

// Redacted thinking shows nothing and goes back as it came; a block kind kimi-run does not
// know goes back as it started.
func TestAnthropicRedactedThinkingGoesBack(t *testing.T) {
	body := message("end_turn",
		[]string{`{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pWrezGf"}}`,
			`{"type":"content_block_stop","index":0}`},
		[]string{`{"type":"content_block_start","index":1,"content_block":{"type":"citation_marker","n":3}}`,
			`{"type":"content_block_stop","index":1}`},
		textBlock(2, "ok"))
	f := newFakeMessages(t, fakeAnswer{body: body})
	var rec recorder
	reply, err := f.client(nil).Stream(context.Background(), userRequest("x"), rec.handler())
	if err != nil {
		t.Fatal(err)
	}
	if rec.thinking.Len() != 0 || reply.Text != "ok" {
		t.Errorf("thinking %q, reply %+v", rec.thinking.String(), reply)
	}
	blocks := assistantBlocks(model.Message{Role: model.RoleAssistant, Content: reply.Text, ReasoningField: reply.ReasoningField, ReasoningDetails: reply.ReasoningDetails})
	got, _ := json.Marshal(blocks)
	want := `[{"data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pWrezGf","type":"redacted_thinking"},{"n":3,"type":"citation_marker"},{"text":"ok","type":"text"}]`
	if string(got) != want {
		t.Errorf("blocks sent back = %s\nwant %s", got, want)
	}
}

// The endpoint under each way a base URL is written.
func TestAnthropicMessagesURL(t *testing.T) {
	for base, want := range map[string]string{
		"https://api.anthropic.com":                "https://api.anthropic.com/v1/messages",
		"https://api.anthropic.com/":               "https://api.anthropic.com/v1/messages",
		"https://api.moonshot.ai/anthropic":        "https://api.moonshot.ai/anthropic/v1/messages",
		"http://127.0.0.1:8080/x/v1":               "http://127.0.0.1:8080/x/v1/messages",
		"https://gw.example/anthropic/v1/messages": "https://gw.example/anthropic/v1/messages",
	} {
		if got := messagesURL(base); got != want {
			t.Errorf("messagesURL(%q) = %q, want %q", base, got, want)
		}
	}
}

// Headers: custom_headers replace ours (an Authorization for a gateway, a pinned version),
// and anthropic-beta values are joined with the thinking beta.
func TestAnthropicHeaders(t *testing.T) {
	f := newFakeMessages(t, fakeAnswer{body: message("end_turn", textBlock(0, "ok"))})
	on := true
	c := f.client(func(c *model.Config) {
		c.Thinking = &on
		c.Headers = map[string]string{"User-Agent": "kimi-run/test", "Anthropic-Version": "2099-01-01",
			"anthropic-beta": "context-1m-2025-08-07, interleaved-thinking-2025-05-14", "Authorization": "Bearer gw-token"}
	})
	if _, err := c.Stream(context.Background(), userRequest("x"), model.Handler{}); err != nil {
		t.Fatal(err)
	}
	h := f.requests()[0].header
	for k, v := range map[string]string{
		"Anthropic-Version": "2099-01-01", "Anthropic-Beta": "interleaved-thinking-2025-05-14,context-1m-2025-08-07",
		"Authorization": "Bearer gw-token", "X-Api-Key": "sk-ant-test", "User-Agent": "kimi-run/test",
	} {
		if got := h.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	// No key: no x-api-key header at all (a gateway that takes a bearer token).
	f = newFakeMessages(t, fakeAnswer{body: message("end_turn", textBlock(0, "ok"))})
	if _, err := f.client(func(c *model.Config) { c.APIKey = "" }).Stream(context.Background(), userRequest("x"), model.Handler{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.requests()[0].header["X-Api-Key"]; ok {
		t.Errorf("x-api-key sent without a key")
	}
}

// The thinking switch as each model takes it, and the completion cap.
func TestAnthropicThinkingAndMaxTokens(t *testing.T) {
	on, off := true, false
	tests := []struct {
		name      string
		model     string
		thinking  *bool
		maxTokens int
		want      map[string]any
		effort    bool
		sentMax   float64
	}{
		{name: "unset", model: "claude-sonnet-4-5", sentMax: MaxTokens},
		{name: "off", model: "claude-sonnet-4-5", thinking: &off, want: map[string]any{"type": "disabled"}, sentMax: MaxTokens},
		{name: "budget", model: "claude-opus-4-1-20250805", thinking: &on, maxTokens: 8000, want: map[string]any{"type": "enabled", "budget_tokens": 6000.0}, sentMax: 8000},
		{name: "dated model is not 4.20", model: "claude-sonnet-4-20250514", thinking: &on, want: map[string]any{"type": "enabled", "budget_tokens": 24000.0}, sentMax: MaxTokens},
		{name: "adaptive", model: "claude-opus-4-6", thinking: &on, want: map[string]any{"type": "adaptive", "display": "summarized"}, effort: true, sentMax: MaxTokens},
		{name: "adaptive dotted", model: "anthropic/claude-sonnet-4.7", thinking: &on, want: map[string]any{"type": "adaptive", "display": "summarized"}, effort: true, sentMax: MaxTokens},
		{name: "too small for thinking", model: "claude-sonnet-4-5", thinking: &on, maxTokens: 1500, sentMax: 1500},
		{name: "cap above the default", model: "claude-sonnet-4-5", maxTokens: 100000, sentMax: MaxTokens},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMessages(t, fakeAnswer{body: message("end_turn", textBlock(0, "ok"))})
			c := f.client(func(c *model.Config) { c.Model, c.Thinking = tt.model, tt.thinking })
			req := userRequest("x")
			req.MaxTokens = tt.maxTokens
			if _, err := c.Stream(context.Background(), req, model.Handler{}); err != nil {
				t.Fatal(err)
			}
			body := f.requests()[0].body
			got, _ := body["thinking"].(map[string]any)
			if !reflect.DeepEqual(got, tt.want) && !(got == nil && tt.want == nil) {
				t.Errorf("thinking = %v, want %v", body["thinking"], tt.want)
			}
			if _, ok := body["output_config"]; ok != tt.effort {
				t.Errorf("output_config = %v", body["output_config"])
			}
			if body["max_tokens"] != tt.sentMax {
				t.Errorf("max_tokens = %v, want %v", body["max_tokens"], tt.sentMax)
			}
		})
	}
}

// The request's shape: tools with a cache breakpoint on the last, images before the text,
// a later system message said as Kimi CLI says it, a call whose arguments were not JSON
// sent back as {}, and no tools for a compaction summary.
func TestAnthropicRequestShape(t *testing.T) {
	f := newFakeMessages(t, fakeAnswer{body: message("end_turn", textBlock(0, "ok"))})
	c := f.client(nil)
	req := model.Request{
		Tools: []tools.Tool{fakeTool{"A"}, fakeTool{"B"}},
		Messages: []model.Message{
			{Role: model.RoleSystem, Content: "sys"},
			{Role: model.RoleUser, Content: "look", Images: []event.Image{{MIME: "image/png", Data: []byte{1, 2, 3}}}},
			{Role: model.RoleAssistant, ToolCalls: []model.CallSpec{{ID: "toolu_x", Name: "A", Arguments: "{not json"}}},
			{Role: model.RoleTool, ToolCallID: "toolu_x", Content: ""},
			{Role: model.RoleSystem, Content: "a reminder"},
		},
	}
	if _, err := c.Stream(context.Background(), req, model.Handler{}); err != nil {
		t.Fatal(err)
	}
	body := f.requests()[0].body
	got, _ := json.Marshal(map[string]any{"tools": body["tools"], "messages": body["messages"]})
	want := `{"messages":[{"content":[{"source":{"data":"AQID","media_type":"image/png","type":"base64"},"type":"image"},{"text":"look","type":"text"}],"role":"user"},` +
		`{"content":[{"id":"toolu_x","input":{},"name":"A","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"content":"(no output)","tool_use_id":"toolu_x","type":"tool_result"},{"cache_control":{"type":"ephemeral"},"text":"\u003csystem\u003ea reminder\u003c/system\u003e","type":"text"}],"role":"user"}],` +
		`"tools":[{"description":"does A","input_schema":{"properties":{"x":{"type":"string"}},"type":"object"},"name":"A"},{"cache_control":{"type":"ephemeral"},"description":"does B","input_schema":{"properties":{"x":{"type":"string"}},"type":"object"},"name":"B"}]}`
	if string(got) != want {
		t.Errorf("request:\n%s\nwant\n%s", got, want)
	}
	req.NoTools = true
	if _, err := c.Stream(context.Background(), req, model.Handler{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.requests()[1].body["tools"]; ok {
		t.Errorf("tools sent with NoTools")
	}
}

// A tool_use block whose input came whole at its start (no input_json_delta, as some
// compatible servers send it) keeps that input; ids missing or repeated are made unique.
func TestAnthropicToolInputAtStart(t *testing.T) {
	body := message("tool_use",
		[]string{`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"dup","name":"A","input":{"x": "1"}}}`, `{"type":"content_block_stop","index":0}`},
		[]string{`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"dup","name":"B","input":{}}}`, `{"type":"content_block_stop","index":1}`},
		[]string{`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","name":"C","input":{}}}`, `{"type":"content_block_stop","index":2}`})
	f := newFakeMessages(t, fakeAnswer{body: body})
	reply, err := f.client(nil).Stream(context.Background(), userRequest("x"), model.Handler{})
	if err != nil {
		t.Fatal(err)
	}
	want := []model.CallSpec{{ID: "dup", Name: "A", Arguments: `{"x":"1"}`}, {ID: "toolu_kimi_run_1", Name: "B", Arguments: "{}"}, {ID: "toolu_kimi_run_2", Name: "C", Arguments: "{}"}}
	if !reflect.DeepEqual(reply.ToolCalls, want) {
		t.Errorf("calls = %+v\nwant %+v", reply.ToolCalls, want)
	}
}

// A server that ignores stream: true and answers with the whole message is read as the
// one-shot reply it is; an error document so sent is a provider error.
func TestAnthropicWholeMessageReply(t *testing.T) {
	whole := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[` +
		`{"type":"thinking","thinking":"Let me look.","signature":"c2ln"},` +
		`{"type":"text","text":"Looking."},` +
		`{"type":"tool_use","id":"toolu_w","name":"Glob","input":{"pattern":"*.go"}}],` +
		`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":30,"cache_read_input_tokens":10,"output_tokens":12}}`
	f := newFakeMessages(t, fakeAnswer{status: 200, header: map[string]string{"Content-Type": "application/json"}, body: whole})
	var rec recorder
	reply, err := f.client(nil).Stream(context.Background(), userRequest("x"), rec.handler())
	if err != nil {
		t.Fatal(err)
	}
	want := []model.CallSpec{{ID: "toolu_w", Name: "Glob", Arguments: `{"pattern":"*.go"}`}}
	if reply.Text != "Looking." || rec.thinking.String() != "Let me look." || !reflect.DeepEqual(reply.ToolCalls, want) || reply.FinishReason != "tool_calls" {
		t.Errorf("reply = %+v", reply)
	}
	if reply.Usage != (model.TokenUsage{InputTokens: 40, CachedTokens: 10, OutputTokens: 12}) {
		t.Errorf("usage = %+v", reply.Usage)
	}
	f = newFakeMessages(t, fakeAnswer{status: 200, header: map[string]string{"Content-Type": "application/json"},
		body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`})
	_, err = f.client(nil).Stream(context.Background(), userRequest("x"), model.Handler{})
	var pe *model.ProviderError
	if !errors.As(err, &pe) || pe.Type != "overloaded_error" || !model.Retryable(err) {
		t.Errorf("err = %v", err)
	}
}

// A conversation begun with another protocol's model (a fallback, a resumed session) goes
// to the API as it accepts it: tool call ids it refuses are made safe the same way in the
// call and its result, and a tool loop whose assistant turn has no thinking is asked on
// without thinking, where the API would refuse the request.
func TestAnthropicForeignConversation(t *testing.T) {
	f := newFakeMessages(t, fakeAnswer{body: message("end_turn", textBlock(0, "ok"))})
	on := true
	c := f.client(func(c *model.Config) { c.Thinking = &on })
	req := model.Request{Messages: []model.Message{
		{Role: model.RoleSystem, Content: "sys"},
		{Role: model.RoleUser, Content: "go"},
		{Role: model.RoleAssistant, Reasoning: "moonshot's thought", ToolCalls: []model.CallSpec{
			{ID: "functions.Shell:0", Name: "Shell", Arguments: `{"command":"ls"}`},
			{ID: "functions_Shell_0", Name: "Shell", Arguments: `{"command":"pwd"}`},
			{ID: "call_ok-1", Name: "Glob", Arguments: `{}`}}},
		{Role: model.RoleTool, ToolCallID: "functions.Shell:0", Content: "a.go"},
		{Role: model.RoleTool, ToolCallID: "functions_Shell_0", Content: "/w"},
		{Role: model.RoleTool, ToolCallID: "call_ok-1", Content: "b.go"},
	}}
	if _, err := c.Stream(context.Background(), req, model.Handler{}); err != nil {
		t.Fatal(err)
	}
	body := f.requests()[0].body
	msgs := body["messages"].([]any)
	var uses, results []string
	for _, b := range msgs[1].(map[string]any)["content"].([]any) {
		uses = append(uses, b.(map[string]any)["id"].(string))
	}
	for _, b := range msgs[2].(map[string]any)["content"].([]any) {
		results = append(results, b.(map[string]any)["tool_use_id"].(string))
	}
	want := []string{"functions_Shell_0_2", "functions_Shell_0", "call_ok-1"}
	if !reflect.DeepEqual(uses, want) || !reflect.DeepEqual(results, want) {
		t.Errorf("ids: calls %v, results %v, want %v", uses, results, want)
	}
	if _, ok := body["thinking"]; ok {
		t.Errorf("thinking asked in a tool loop begun without it: %v", body["thinking"])
	}
	// The same conversation with a new user prompt after it asks for thinking again.
	req.Messages = append(req.Messages, model.Message{Role: model.RoleAssistant, Content: "done"}, model.Message{Role: model.RoleUser, Content: "next"})
	if _, err := c.Stream(context.Background(), req, model.Handler{}); err != nil {
		t.Fatal(err)
	}
	if th, _ := f.requests()[1].body["thinking"].(map[string]any); th["type"] != "enabled" {
		t.Errorf("thinking = %v", f.requests()[1].body["thinking"])
	}
}

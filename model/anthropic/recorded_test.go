package anthropic

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/model"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// Recorded Anthropic traffic (testdata/providers, sources in its README), replayed over
// loopback HTTP by the scripted server and read by the real client.

func anthropicRecording(t *testing.T, name string) (*scripted.Server, *Client) {
	t.Helper()
	srv := scripted.New(t, scripted.Load(t, filepath.Join("..", "..", "testdata", "providers", name+".txtar"))...)
	return srv, New(model.Config{Protocol: "anthropic", BaseURL: srv.URL(), APIKey: "sk-ant-recorded", Model: "claude-sonnet-4-20250514"})
}

// recordedTurns reads the turns a recorded second request carried after the first user
// turn (NAME.request2.json).
func recordedTurns(t *testing.T, name string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "providers", name+".request2.json"))
	if err != nil {
		t.Fatal(err)
	}
	var turns []map[string]any
	if err := json.Unmarshal(raw, &turns); err != nil {
		t.Fatal(err)
	}
	return turns
}

// plainPunctuation undoes what pydantic-ai's cassettes do to the request bodies they store:
// typographic apostrophes and dashes made plain (the responses are stored as sent).
var plainPunctuation = strings.NewReplacer("’", "'", "–", "-")

// sameBlocks compares the blocks kimi-run sent with those the recorded client sent, field by
// field of the recorded ones (a cache breakpoint kimi-run adds is not the recording's).
func sameBlocks(t *testing.T, got, want []any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d blocks sent back, the recording %d", len(got), len(want))
	}
	plain := func(v any) string {
		b, _ := json.Marshal(v)
		return plainPunctuation.Replace(string(b))
	}
	for i := range want {
		g, w := got[i].(map[string]any), want[i].(map[string]any)
		for k, wv := range w {
			if plain(g[k]) != plain(wv) {
				gj, _ := json.Marshal(g[k])
				wj, _ := json.Marshal(wv)
				t.Errorf("block %d (%s) field %s:\n sent     %.300s\n recorded %.300s", i, w["type"], k, gj, wj)
			}
		}
	}
}

// sentTurns is request i's messages as JSON values.
func sentTurns(t *testing.T, srv *scripted.Server, i int) []any {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) <= i {
		t.Fatalf("%d requests, want more than %d", len(reqs), i)
	}
	msgs, _ := reqs[i].Body["messages"].([]any)
	return msgs
}

func asMessage(r model.Reply) model.Message {
	return model.Message{Role: model.RoleAssistant, Content: r.Text, Reasoning: r.Reasoning, ToolCalls: r.ToolCalls,
		ReasoningField: r.ReasoningField, ReasoningDetails: r.ReasoningDetails}
}

// claude-sonnet-4 with thinking (fantasy's recording): the thought streams, its signature is
// kept, the call's input arrives in pieces, and the next request carries the thinking block
// and the call exactly as the recorded client sent them.
func TestRecordedAnthropicThinkingTool(t *testing.T) {
	srv, c := anthropicRecording(t, "anthropic-thinking-tool")
	var rec recorder
	req := model.Request{Messages: []model.Message{{Role: model.RoleSystem, Content: "You are a helpful assistant"}, {Role: model.RoleUser, Content: "What's the weather in Florence, Italy?"}}}
	reply, err := c.Stream(context.Background(), req, rec.handler())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rec.thinking.String(), "The user is asking for weather information for Florence, Italy.") || reply.Reasoning != rec.thinking.String() {
		t.Errorf("thinking = %q", rec.thinking.String())
	}
	want := []model.CallSpec{{ID: "toolu_01Js4AMfx5qpTLhwTusnvT68", Name: "weather", Arguments: `{"location": "Florence, Italy"}`}}
	if !reflect.DeepEqual(reply.ToolCalls, want) || reply.FinishReason != "tool_calls" {
		t.Errorf("calls = %+v, finish %q", reply.ToolCalls, reply.FinishReason)
	}
	if reply.Usage != (model.TokenUsage{InputTokens: 424, OutputTokens: 119}) {
		t.Errorf("usage = %+v", reply.Usage)
	}
	req.Messages = append(req.Messages, asMessage(reply), model.Message{Role: model.RoleTool, ToolCallID: want[0].ID, Content: "40 C"})
	answer, err := c.Stream(context.Background(), req, model.Handler{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(answer.Text, "The current weather in Florence, Italy is 40°C (104°F).") || answer.Usage.InputTokens != 558 || answer.Usage.OutputTokens != 51 {
		t.Errorf("answer = %+v", answer)
	}
	recorded := recordedTurns(t, "anthropic-thinking-tool")
	sent := sentTurns(t, srv, 1)
	sameBlocks(t, sent[1].(map[string]any)["content"].([]any), recorded[0]["content"].([]any))
	result := sent[2].(map[string]any)["content"].([]any)[0].(map[string]any)
	if result["tool_use_id"] != "toolu_01Js4AMfx5qpTLhwTusnvT68" {
		t.Errorf("tool result = %v", result)
	}
}

// Parallel calls (fantasy's recording): text and two tool_use blocks in one reply, sent back
// as the recorded client sent them.
func TestRecordedAnthropicParallelTools(t *testing.T) {
	srv, c := anthropicRecording(t, "anthropic-parallel-tools")
	req := userRequest("Add and multiply the number 2 and 3")
	reply, err := c.Stream(context.Background(), req, model.Handler{})
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.ToolCalls) != 2 || reply.ToolCalls[0].Name != "add" || reply.ToolCalls[1].Name != "multiply" {
		t.Fatalf("calls = %+v", reply.ToolCalls)
	}
	for _, call := range reply.ToolCalls {
		var args map[string]int
		if json.Unmarshal([]byte(call.Arguments), &args) != nil || args["a"] != 2 || args["b"] != 3 {
			t.Errorf("%s arguments = %s", call.Name, call.Arguments)
		}
	}
	req.Messages = append(req.Messages, asMessage(reply),
		model.Message{Role: model.RoleTool, ToolCallID: reply.ToolCalls[0].ID, Content: "5"},
		model.Message{Role: model.RoleTool, ToolCallID: reply.ToolCalls[1].ID, Content: "6"})
	if _, err := c.Stream(context.Background(), req, model.Handler{}); err != nil {
		t.Fatal(err)
	}
	recorded := recordedTurns(t, "anthropic-parallel-tools")
	sent := sentTurns(t, srv, 1)
	sameBlocks(t, sent[1].(map[string]any)["content"].([]any), recorded[0]["content"].([]any))
	results := sent[2].(map[string]any)["content"].([]any)
	if len(results) != 2 || results[0].(map[string]any)["tool_use_id"] != reply.ToolCalls[0].ID || results[1].(map[string]any)["tool_use_id"] != reply.ToolCalls[1].ID {
		t.Errorf("tool results = %v", results)
	}
}

// Redacted thinking (pydantic-ai's recording): nothing to show, both blocks kept verbatim for
// the next request, pings between blocks are no trouble.
func TestRecordedAnthropicRedactedThinking(t *testing.T) {
	_, c := anthropicRecording(t, "anthropic-redacted-thinking")
	var rec recorder
	reply, err := c.Stream(context.Background(), userRequest("x"), rec.handler())
	if err != nil {
		t.Fatal(err)
	}
	if rec.thinking.Len() != 0 || !strings.HasPrefix(reply.Text, "I notice that you've sent what appears to be") {
		t.Errorf("thinking %q, text %q", rec.thinking.String(), reply.Text)
	}
	blocks := assistantBlocks(asMessage(reply))
	if len(blocks) != 3 || blocks[0]["type"] != "redacted_thinking" || blocks[1]["type"] != "redacted_thinking" || blocks[2]["type"] != "text" {
		t.Fatalf("blocks = %v", blocks)
	}
	if d, _ := blocks[0]["data"].(string); !strings.HasPrefix(d, "EqkECkYIBxgCKkA8AZ4noDfV5VcOJe") || !strings.HasSuffix(d, "ewJ/hgB") {
		t.Errorf("first redacted block = %.60s…", d)
	}
	if reply.Usage != (model.TokenUsage{InputTokens: 92, OutputTokens: 189}) {
		t.Errorf("usage = %+v", reply.Usage)
	}
}

// pause_turn (pydantic-ai's recording of a web search the API paused): one Stream call makes
// both requests; the second carries the first reply's blocks (signed thinking, text, the
// server tool calls with their streamed input, their encrypted results) as the recorded
// client sent them, and the reply is the whole turn.
func TestRecordedAnthropicPauseTurn(t *testing.T) {
	srv, c := anthropicRecording(t, "anthropic-pause-turn")
	var rec recorder
	reply, err := c.Stream(context.Background(), userRequest("run these searches"), rec.handler())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
	recorded := recordedTurns(t, "anthropic-pause-turn")
	sent := sentTurns(t, srv, 1)
	last := sent[len(sent)-1].(map[string]any)
	if last["role"] != "assistant" {
		t.Fatalf("last message sent = %v", last["role"])
	}
	sameBlocks(t, last["content"].([]any), recorded[0]["content"].([]any))
	if reply.FinishReason != "stop" || !strings.HasPrefix(reply.Text, "I'll run these searches one at a time as requested.") || rec.text.String() != reply.Text {
		t.Errorf("reply: finish %q, text %.80q", reply.FinishReason, reply.Text)
	}
	if reply.Usage.InputTokens == 0 || reply.Usage.OutputTokens == 0 {
		t.Errorf("usage = %+v", reply.Usage)
	}
}

// The API's own compaction (pydantic-ai's recording): a prompt read from the cache, a block
// of a kind kimi-run does not know filled by its own deltas and kept for the next request,
// and usage counted over every iteration the API reports.
func TestRecordedAnthropicCacheAndCompaction(t *testing.T) {
	_, c := anthropicRecording(t, "anthropic-cache-compaction")
	reply, err := c.Stream(context.Background(), userRequest("Now say hello."), model.Handler{})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "Hello! 👋" {
		t.Errorf("text = %q", reply.Text)
	}
	want := model.TokenUsage{InputTokens: 100 + 55096 + 181, CachedTokens: 55096, OutputTokens: 83 + 8}
	if reply.Usage != want {
		t.Errorf("usage = %+v, want %+v", reply.Usage, want)
	}
	blocks := assistantBlocks(asMessage(reply))
	if len(blocks) != 2 || blocks[0]["type"] != "compaction" {
		t.Fatalf("blocks = %v", blocks)
	}
	if content, _ := blocks[0]["content"].(string); !strings.HasPrefix(content, "The user provided a very long context") || !strings.HasSuffix(content, "Next step: Say hello to the user.") {
		t.Errorf("compaction block content = %q", content)
	}
}

package gemini_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/model/gemini"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/tools"
)

// geminiModel is a Gemini client on srv; srv.URL() ends in /v1, an API version, so the
// requests go to …/v1/models/gemini-test:streamGenerateContent?alt=sse.
func geminiModel(srv *scripted.Server, cfg model.Config) model.Model {
	cfg.Protocol = firstNonEmpty(cfg.Protocol, "gemini")
	cfg.BaseURL = srv.URL()
	cfg.Model = firstNonEmpty(cfg.Model, "gemini-test")
	cfg.APIKey = firstNonEmpty(cfg.APIKey, "gm-key")
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = time.Minute
	}
	return gemini.New(cfg)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func hello() model.Request {
	return model.Request{Messages: []model.Message{{Role: model.RoleSystem, Content: "be brief"}, {Role: model.RoleUser, Content: "hi"}}}
}

// events collects what a handler saw, in order.
type events struct{ log []string }

func (e *events) handler() model.Handler {
	return model.Handler{
		Text:     func(d string) { e.log = append(e.log, "text:"+d) },
		Thinking: func(d string) { e.log = append(e.log, "think:"+d) },
		ToolCall: func(c model.CallSpec) { e.log = append(e.log, "call:"+c.Name+" "+c.Arguments) },
	}
}

// A text answer: the stream's text and usage, the request on Gemini's path with the key in
// x-goog-api-key, the system message as the system instruction, and no chat-completions
// field (Kimi's thinking switch) in the body.
func TestGeminiText(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Reply(scripted.Say("Hello there"), scripted.Usage(12, 5, 4)))
	var ev events
	m := geminiModel(srv, model.Config{ExtraBody: map[string]json.RawMessage{"thinking": json.RawMessage(`{"type":"enabled"}`)}})
	reply, err := m.Stream(t.Context(), hello(), ev.handler())
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "Hello there" || reply.FinishReason != "stop" {
		t.Fatalf("reply %+v", reply)
	}
	if want := (model.TokenUsage{InputTokens: 12, OutputTokens: 5, CachedTokens: 4}); reply.Usage != want {
		t.Errorf("usage %+v, want %+v", reply.Usage, want)
	}
	if strings.Join(ev.log, "|") != "text:Hello |text:there" {
		t.Errorf("handler saw %q", ev.log)
	}
	req := srv.Requests()[0]
	if !strings.HasSuffix(req.Path, "/v1/models/gemini-test:streamGenerateContent") {
		t.Errorf("path %s", req.Path)
	}
	if req.Header.Get("x-goog-api-key") != "gm-key" || req.Header.Get("Authorization") != "" {
		t.Errorf("key headers: x-goog-api-key %q, Authorization %q", req.Header.Get("x-goog-api-key"), req.Header.Get("Authorization"))
	}
	if _, ok := req.Body["thinking"]; ok {
		t.Errorf("a chat-completions field went to Gemini: %s", req.Raw)
	}
	si, _ := json.Marshal(req.Body["systemInstruction"])
	contents, _ := json.Marshal(req.Body["contents"])
	if string(si) != `{"parts":[{"text":"be brief"}]}` || string(contents) != `[{"parts":[{"text":"hi"}],"role":"user"}]` {
		t.Errorf("systemInstruction %s, contents %s", si, contents)
	}
}

type geminiTool struct{ name, schema string }

func (f geminiTool) Name() string        { return f.name }
func (f geminiTool) Description() string { return "does " + f.name }
func (f geminiTool) Schema() json.RawMessage {
	return json.RawMessage(f.schema)
}
func (f geminiTool) Facts() tools.Facts { return tools.Facts{} }
func (f geminiTool) Run(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, nil
}

// Thoughts become thinking, calls arrive whole with ids of their own, and the reasoning
// tokens are counted in the output, as Google bills them.
func TestGeminiThinkingAndCalls(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Reply(scripted.Think("let me look"), scripted.Say("Looking."),
		scripted.Call("Shell", `{"command":"ls"}`), scripted.Call("ReadFile", `{"path":"a.go"}`),
		scripted.Usage(100, 30, 0), scripted.ReasoningTokens(10)))
	var ev events
	reply, err := geminiModel(srv, model.Config{}).Stream(t.Context(), hello(), ev.handler())
	if err != nil {
		t.Fatal(err)
	}
	want := "think:let |think:me |think:look|text:Looking.|call:Shell {\"command\":\"ls\"}|call:ReadFile {\"path\":\"a.go\"}"
	if got := strings.Join(ev.log, "|"); got != want {
		t.Errorf("handler saw\n %s\nwant\n %s", got, want)
	}
	if reply.FinishReason != "tool_calls" || len(reply.ToolCalls) != 2 || reply.ToolCalls[0].ID == reply.ToolCalls[1].ID || reply.ToolCalls[0].ID == "" {
		t.Fatalf("reply %+v", reply)
	}
	if want := (model.TokenUsage{InputTokens: 100, OutputTokens: 30, ReasoningTokens: 10}); reply.Usage != want {
		t.Errorf("usage %+v, want %+v", reply.Usage, want)
	}
}

// What goes back: the model turn with its text, calls and every thought signature on the
// part it came on, the results of parallel calls together in one user turn under the
// calls' names, tools as parametersJsonSchema without $schema, the completion cap.
func TestGeminiSendsTurnBack(t *testing.T) {
	t.Parallel()
	const sigCall, sigText = "c2lnLWNhbGw=", "c2lnLXRleHQ="
	srv := scripted.New(t,
		scripted.Events(
			`{"candidates":[{"content":{"parts":[{"text":"Checking.","thoughtSignature":"`+sigText+`"},{"functionCall":{"name":"Shell","args":{"command":"ls"},"id":"g1"},"thoughtSignature":"`+sigCall+`"},{"functionCall":{"name":"Glob","args":{"pattern":"*.go"}}}],"role":"model"},"index":0}]}`,
			`{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":9,"totalTokenCount":29}}`),
		scripted.Text("done"))
	m := geminiModel(srv, model.Config{})
	tl := []tools.Tool{geminiTool{"Shell", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"command":{"type":"string"}},"additionalProperties":false}`}}
	req := hello()
	req.Tools, req.MaxTokens = tl, 2048
	reply, err := m.Stream(t.Context(), req, model.Handler{})
	if err != nil {
		t.Fatal(err)
	}
	if reply.ReasoningField != gemini.ReasoningField || len(reply.ToolCalls) != 2 || reply.ToolCalls[0].ID != "g1" {
		t.Fatalf("reply %+v", reply)
	}
	req.Messages = append(req.Messages,
		model.Message{Role: model.RoleAssistant, Content: reply.Text, ToolCalls: reply.ToolCalls, ReasoningField: reply.ReasoningField, ReasoningDetails: reply.ReasoningDetails},
		model.Message{Role: model.RoleTool, ToolCallID: reply.ToolCalls[0].ID, Content: "a.go"},
		model.Message{Role: model.RoleTool, ToolCallID: reply.ToolCalls[1].ID, Content: ""},
		model.Message{Role: model.RoleUser, Content: "and?"})
	if _, err := m.Stream(t.Context(), req, model.Handler{}); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[1].Body
	got, _ := json.Marshal(body["contents"])
	want := `[{"parts":[{"text":"hi"}],"role":"user"},` +
		`{"parts":[{"text":"Checking.","thoughtSignature":"` + sigText + `"},{"functionCall":{"args":{"command":"ls"},"id":"g1","name":"Shell"},"thoughtSignature":"` + sigCall + `"},{"functionCall":{"args":{"pattern":"*.go"},"id":"` + reply.ToolCalls[1].ID + `","name":"Glob"}}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"id":"g1","name":"Shell","response":{"output":"a.go"}}},{"functionResponse":{"id":"` + reply.ToolCalls[1].ID + `","name":"Glob","response":{"output":""}}},{"text":"and?"}],"role":"user"}]`
	if string(got) != want {
		t.Errorf("contents\n got %s\nwant %s", got, want)
	}
	decl, _ := json.Marshal(body["tools"])
	if string(decl) != `[{"functionDeclarations":[{"description":"does Shell","name":"Shell","parametersJsonSchema":{"additionalProperties":false,"properties":{"command":{"type":"string"}},"type":"object"}}]}]` {
		t.Errorf("tools %s", decl)
	}
	gen, _ := json.Marshal(body["generationConfig"])
	if string(gen) != `{"maxOutputTokens":2048}` {
		t.Errorf("generationConfig %s", gen)
	}
}

// A turn made by another provider's model (a fallback, a resumed session) has no
// signatures: its first call carries the value Google documents for skipping the check,
// which Gemini 3 would otherwise fail with HTTP 400. Arguments that are no JSON object go
// as an empty one.
func TestGeminiForeignTurn(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("ok"))
	req := hello()
	req.Messages = append(req.Messages,
		model.Message{Role: model.RoleAssistant, Reasoning: "hmm", ReasoningField: model.ReasoningContent,
			ToolCalls: []model.CallSpec{{ID: "call_1", Name: "Shell", Arguments: `{"command":"ls"`}, {ID: "call_2", Name: "Glob", Arguments: `{}`}}},
		model.Message{Role: model.RoleTool, ToolCallID: "call_1", Content: "bad arguments"},
		model.Message{Role: model.RoleTool, ToolCallID: "call_2", Content: "x"})
	if _, err := geminiModel(srv, model.Config{}).Stream(t.Context(), req, model.Handler{}); err != nil {
		t.Fatal(err)
	}
	turn, _ := json.Marshal(srv.Requests()[0].Body["contents"].([]any)[1])
	want := `{"parts":[{"functionCall":{"args":{},"id":"call_1","name":"Shell"},"thoughtSignature":"skip_thought_signature_validator"},{"functionCall":{"args":{},"id":"call_2","name":"Glob"}}],"role":"model"}`
	if string(turn) != want {
		t.Errorf("model turn\n got %s\nwant %s", turn, want)
	}
}

// The --thinking switch as Kimi CLI maps it: Gemini 3 by level, earlier models by budget;
// unset sends no thinkingConfig.
func TestGeminiThinkingConfig(t *testing.T) {
	t.Parallel()
	on, off := true, false
	for _, tt := range []struct {
		model    string
		thinking *bool
		want     string
	}{
		{"gemini-2.5-flash", nil, `null`},
		{"gemini-2.5-flash", &on, `{"includeThoughts":true,"thinkingBudget":-1}`},
		{"gemini-2.5-flash", &off, `{"includeThoughts":false,"thinkingBudget":0}`},
		{"gemini-3-pro-preview", &on, `{"includeThoughts":true,"thinkingLevel":"HIGH"}`},
		{"gemini-3-pro-preview", &off, `{"thinkingLevel":"LOW"}`},
	} {
		srv := scripted.New(t, scripted.Text("ok"))
		if _, err := geminiModel(srv, model.Config{Model: tt.model, Thinking: tt.thinking}).Stream(t.Context(), hello(), model.Handler{}); err != nil {
			t.Fatal(err)
		}
		gen, _ := srv.Requests()[0].Body["generationConfig"].(map[string]any)
		got, _ := json.Marshal(gen["thinkingConfig"])
		if string(got) != tt.want {
			t.Errorf("%s thinking %v: thinkingConfig %s, want %s", tt.model, tt.thinking, got, tt.want)
		}
	}
}

// A server that ignores alt=sse answers streamGenerateContent with a JSON array of the same
// objects (generateContent, with one): read as the whole reply it is, not retried as a
// stream without events.
func TestGeminiPlainJSONReply(t *testing.T) {
	t.Parallel()
	const first = `{"candidates":[{"content":{"parts":[{"text":"Hello "}],"role":"model"},"index":0}]}`
	const last = `{"candidates":[{"content":{"parts":[{"text":"there"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2}}`
	for name, body := range map[string]string{"array": "[" + first + ",\n" + last + "]", "object": strings.Replace(last, `"there"`, `"Hello there"`, 1)} {
		srv := scripted.New(t, scripted.Status(200, body))
		reply, err := geminiModel(srv, model.Config{}).Stream(t.Context(), hello(), model.Handler{})
		if err != nil || reply.Text != "Hello there" || reply.Usage.InputTokens != 4 {
			t.Errorf("%s: reply %+v, %v", name, reply, err)
		}
	}
}

// An image attached to the prompt (--image) goes as inline data after the text, its bytes
// Base64-encoded, as Gemini reads pictures.
func TestGeminiImage(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("a cat"))
	req := hello()
	req.Messages[1].Images = []event.Image{{MIME: "image/png", Data: []byte("\x89PNG")}}
	if _, err := geminiModel(srv, model.Config{}).Stream(t.Context(), req, model.Handler{}); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(srv.Requests()[0].Body["contents"])
	if string(got) != `[{"parts":[{"text":"hi"},{"inlineData":{"data":"iVBORw==","mimeType":"image/png"}}],"role":"user"}]` {
		t.Errorf("contents %s", got)
	}
}

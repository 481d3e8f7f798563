package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

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
	m, err := model.New(cfg)
	if err != nil {
		panic(err)
	}
	return m
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
	if reply.ReasoningField != model.ReasoningGemini || len(reply.ToolCalls) != 2 || reply.ToolCalls[0].ID != "g1" {
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

// How each way a Gemini reply can end is judged: an answer; a cap reached (length); a
// filter or a recitation (not an answer, not retried: exit 8); a botched call (retried);
// a refused prompt; an error object in the stream (retried); a stream that stops before a
// finishReason (cut, retried); and an empty STOP (retried).
func TestGeminiEndings(t *testing.T) {
	t.Parallel()
	const usage = `"usageMetadata":{"promptTokenCount":7,"candidatesTokenCount":3,"totalTokenCount":10}`
	finish := func(reason, msg string) string {
		return `{"candidates":[{"content":{"parts":[{"text":"partial"}],"role":"model"},"finishReason":"` + reason + `","finishMessage":"` + msg + `","index":0}],` + usage + `}`
	}
	var (
		fe *model.FinishError
		me *model.MalformedReplyError
		pe *model.ProviderError
	)
	for _, tt := range []struct {
		name   string
		resp   scripted.Response
		finish string
		check  func(error) bool
		retry  bool
	}{
		{name: "STOP", resp: scripted.Events(finish("STOP", "")), finish: "stop", check: func(err error) bool { return err == nil }},
		{name: "MAX_TOKENS", resp: scripted.Events(finish("MAX_TOKENS", "")), finish: "length", check: func(err error) bool { return err == nil }},
		{name: "SAFETY", resp: scripted.Events(finish("SAFETY", "")), finish: "safety",
			check: func(err error) bool { return errors.As(err, &fe) && fe.Reason == "SAFETY" && !fe.Prompt }},
		{name: "RECITATION", resp: scripted.Events(finish("RECITATION", "")), finish: "recitation",
			check: func(err error) bool { return errors.As(err, &fe) && fe.Reason == "RECITATION" }},
		{name: "PROHIBITED_CONTENT", resp: scripted.Events(finish("PROHIBITED_CONTENT", "")), finish: "prohibited_content",
			check: func(err error) bool { return errors.As(err, &fe) }},
		{name: "MISSING_THOUGHT_SIGNATURE", resp: scripted.Events(finish("MISSING_THOUGHT_SIGNATURE", "")), finish: "missing_thought_signature",
			check: func(err error) bool { return errors.As(err, &fe) }},
		{name: "an unknown reason", resp: scripted.Events(finish("NEW_REASON", "")), finish: "new_reason",
			check: func(err error) bool { return errors.As(err, &fe) && fe.Reason == "NEW_REASON" }},
		{name: "MALFORMED_FUNCTION_CALL", resp: scripted.Events(finish("MALFORMED_FUNCTION_CALL", "Malformed function call: print(default_api.Shell(")),
			finish: "malformed_function_call", retry: true,
			check: func(err error) bool {
				return errors.As(err, &me) && strings.Contains(err.Error(), "Malformed function call: print(")
			}},
		{name: "UNEXPECTED_TOOL_CALL", resp: scripted.Events(finish("UNEXPECTED_TOOL_CALL", "")), finish: "unexpected_tool_call", retry: true,
			check: func(err error) bool { return errors.As(err, &me) }},
		{name: "prompt blocked", retry: false,
			resp: scripted.Events(`{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT","blockReasonMessage":"The prompt was blocked."},"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9}}`),
			check: func(err error) bool {
				return errors.As(err, &fe) && fe.Prompt && fe.Reason == "PROHIBITED_CONTENT" && strings.Contains(err.Error(), "The prompt was blocked.")
			}},
		{name: "an error object mid-stream", retry: true,
			resp: scripted.Events(`{"candidates":[{"content":{"parts":[{"text":"par"}],"role":"model"},"index":0}]}`,
				`{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`),
			check: func(err error) bool {
				return errors.As(err, &pe) && pe.StatusCode == 0 && pe.Type == "UNAVAILABLE" && strings.Contains(pe.Message, "overloaded")
			}},
		{name: "no finishReason", retry: true,
			resp:  scripted.Events(`{"candidates":[{"content":{"parts":[{"text":"par"}],"role":"model"},"index":0}]}`),
			check: func(err error) bool { return errors.Is(err, model.ErrIncompleteStream) }},
		{name: "cut", retry: true, resp: scripted.Reply(scripted.Say("half an answer"), scripted.Cut()),
			check: func(err error) bool { return errors.Is(err, model.ErrIncompleteStream) }},
		{name: "empty STOP", retry: true,
			resp:  scripted.Events(`{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}]}`),
			check: func(err error) bool { return errors.Is(err, model.ErrEmptyReply) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, tt.resp)
			reply, err := geminiModel(srv, model.Config{}).Stream(t.Context(), hello(), model.Handler{})
			if !tt.check(err) {
				t.Fatalf("err = %v (%T)", err, err)
			}
			if err != nil && model.Retryable(err) != tt.retry {
				t.Errorf("Retryable(%v) = %v, want %v", err, !tt.retry, tt.retry)
			}
			if tt.finish != "" && reply.FinishReason != tt.finish {
				t.Errorf("finish reason %q, want %q", reply.FinishReason, tt.finish)
			}
		})
	}
}

// HTTP errors in Google's shape: a 429 with RetryInfo is retried after the wait it asks
// for (a Retry-After header wins), a daily quota is a quota (not waited out), a bad key is
// an auth failure though Google answers 400, 503 is retried, and Vertex's array-wrapped
// error body is read.
func TestGeminiHTTPErrors(t *testing.T) {
	t.Parallel()
	const rateLimit = `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[` +
		`{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},` +
		`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"36s"}]}}`
	daily := strings.ReplaceAll(rateLimit, "PerMinute", "PerDay")
	const badKey = `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}]}}`
	for _, tt := range []struct {
		name        string
		resp        scripted.Response
		status      int
		retry       bool
		auth, quota bool
		wait        int64
	}{
		{name: "429 with RetryInfo", resp: scripted.Status(429, rateLimit), status: 429, retry: true, wait: 36000},
		{name: "429 with RetryInfo and Retry-After", resp: scripted.Status(429, rateLimit).Header("Retry-After", "2"), status: 429, retry: true, wait: 2000},
		{name: "429 on a daily quota", resp: scripted.Status(429, daily), status: 429, quota: true, wait: 36000},
		{name: "400 API_KEY_INVALID", resp: scripted.Status(400, badKey), status: 400, auth: true, wait: -1},
		{name: "503 UNAVAILABLE", resp: scripted.Status(503, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`), status: 503, retry: true, wait: -1},
		{name: "Vertex 429 in an array", resp: scripted.Status(429, `[{"error":{"code":429,"message":"Resource exhausted. Please try again later.","status":"RESOURCE_EXHAUSTED"}}]`), status: 429, retry: true, wait: -1},
		{name: "403 PERMISSION_DENIED", resp: scripted.Status(403, `{"error":{"code":403,"message":"Method doesn't allow unregistered callers.","status":"PERMISSION_DENIED"}}`), status: 403, auth: true, wait: -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, tt.resp)
			_, err := geminiModel(srv, model.Config{}).Stream(t.Context(), hello(), model.Handler{})
			var pe *model.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v (%T)", err, err)
			}
			if pe.StatusCode != tt.status || model.Retryable(err) != tt.retry || pe.Auth() != tt.auth || pe.Quota() != tt.quota || pe.RetryAfter != tt.wait {
				t.Errorf("%v: status %d retry %v auth %v quota %v wait %d", err, pe.StatusCode, model.Retryable(err), pe.Auth(), pe.Quota(), pe.RetryAfter)
			}
			if pe.Message == "" || strings.Contains(err.Error(), "{") {
				t.Errorf("message %q", err)
			}
		})
	}
}

// A stream that goes silent is abandoned by the stall watch, and one that never stops is
// cut at the reply cap: both are broken streams, retried.
func TestGeminiStallAndCap(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Reply(scripted.Say("thinking about it"), scripted.Hang()))
	_, err := geminiModel(srv, model.Config{IdleTimeout: 50 * time.Millisecond}).Stream(t.Context(), hello(), model.Handler{})
	if !errors.Is(err, model.ErrStreamIdle) || !model.Retryable(err) {
		t.Fatalf("silent stream: %v", err)
	}
	srv = scripted.New(t, scripted.Reply(scripted.SayBytes(-1, 4096)))
	reply, err := geminiModel(srv, model.Config{MaxReplyBytes: 1 << 20}).Stream(t.Context(), hello(), model.Handler{})
	var tl *model.ReplyTooLargeError
	if !errors.As(err, &tl) || !model.Retryable(err) || len(reply.Text) > 1<<20 {
		t.Fatalf("endless stream: %v, kept %d bytes", err, len(reply.Text))
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

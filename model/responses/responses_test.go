package responses_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/model/responses"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/tools"
)

func responsesModel(t *testing.T, srv *scripted.Server, thinking *bool) model.Model {
	t.Helper()
	m := responses.New(model.Config{Protocol: "openai_responses", BaseURL: srv.URL(), APIKey: "sk-test", Model: "gpt-5",
		IdleTimeout: time.Minute, Thinking: thinking})
	return m
}

type seen struct {
	text, thinking strings.Builder
	calls          []model.CallSpec
}

func (s *seen) handler() model.Handler {
	return model.Handler{
		Text:     func(d string) { s.text.WriteString(d) },
		Thinking: func(d string) { s.thinking.WriteString(d) },
		ToolCall: func(c model.CallSpec) { s.calls = append(s.calls, c) },
	}
}

var on = func() *bool { b := true; return &b }()

// One reply with reasoning, text and two calls, streamed as the Responses API streams it:
// the handler sees it as it comes, the reply keeps the reasoning items (encrypted content
// included, ids dropped), and the usage carries cached and reasoning tokens.
func TestResponsesReply(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Reply(scripted.Think("Look first."), scripted.Say("Checking."),
		scripted.CallID("call_a", "Glob", `{"pattern":"*.go"}`), scripted.CallID("call_b", "Shell", `{"command":"ls"}`),
		scripted.Usage(120, 40, 100), scripted.ReasoningTokens(25)))
	var s seen
	reply, err := responsesModel(t, srv, on).Stream(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "go"}}}, s.handler())
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "Checking." || s.text.String() != reply.Text || reply.Reasoning != "Look first." || s.thinking.String() != reply.Reasoning {
		t.Errorf("reply text %q reasoning %q; handler saw %q / %q", reply.Text, reply.Reasoning, s.text.String(), s.thinking.String())
	}
	want := []model.CallSpec{{ID: "call_a", Name: "Glob", Arguments: `{"pattern":"*.go"}`}, {ID: "call_b", Name: "Shell", Arguments: `{"command":"ls"}`}}
	if !reflect.DeepEqual(reply.ToolCalls, want) || !reflect.DeepEqual(s.calls, want) || reply.FinishReason != "tool_calls" {
		t.Errorf("calls %+v (handler %+v), finish %q", reply.ToolCalls, s.calls, reply.FinishReason)
	}
	if u := reply.Usage; u != (model.TokenUsage{InputTokens: 120, OutputTokens: 40, CachedTokens: 100, ReasoningTokens: 25}) {
		t.Errorf("usage = %+v", u)
	}
	var items []map[string]any
	if reply.ReasoningField != responses.ReasoningField || json.Unmarshal(reply.ReasoningDetails, &items) != nil || len(items) != 1 {
		t.Fatalf("reasoning kept: %q %s", reply.ReasoningField, reply.ReasoningDetails)
	}
	if items[0]["encrypted_content"] != scripted.EncryptedReasoning("Look first.") || items[0]["type"] != "reasoning" || items[0]["id"] != nil {
		t.Errorf("reasoning item kept = %v", items[0])
	}
}

// The request: the whole conversation as input items (store false, no previous response),
// tools as Responses function tools, the thinking switch as reasoning effort with the
// encrypted reasoning asked for, and the kept reasoning items sent back before the
// assistant's text and calls.
func TestResponsesRequest(t *testing.T) {
	t.Parallel()
	reasoning := `[{"type":"reasoning","summary":[{"type":"summary_text","text":"s"}],"encrypted_content":"enc:1"},` +
		`{"type":"reasoning","summary":[{"type":"summary_text","text":"only a summary"}]}]`
	msgs := []model.Message{
		{Role: model.RoleSystem, Content: "be brief"},
		{Role: model.RoleUser, Content: "look", Images: []event.Image{{MIME: "image/png", Data: []byte{1, 2}}}},
		{Role: model.RoleAssistant, Content: "Looking.", ReasoningField: responses.ReasoningField, ReasoningDetails: json.RawMessage(reasoning),
			ToolCalls: []model.CallSpec{{ID: "call_1", Name: "Shell", Arguments: `{"command":"ls"}`}}},
		{Role: model.RoleTool, ToolCallID: "call_1", Content: ""},
	}
	for _, tt := range []struct {
		name     string
		thinking *bool
	}{{"thinking on", on}, {"thinking unset", nil}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			_, err := responsesModel(t, srv, tt.thinking).Stream(t.Context(), model.Request{Messages: msgs, Tools: []tools.Tool{fakeTool{}}, MaxTokens: 500}, model.Handler{})
			if err != nil {
				t.Fatal(err)
			}
			req := srv.Requests()[0]
			if req.Path != "/v1/responses" || req.Header.Get("Authorization") != "Bearer sk-test" {
				t.Errorf("request to %s with auth %q", req.Path, req.Header.Get("Authorization"))
			}
			b := req.Body
			if b["model"] != "gpt-5" || b["stream"] != true || b["store"] != false || b["max_output_tokens"] != 500.0 || b["previous_response_id"] != nil {
				t.Errorf("body = %v", b)
			}
			_, hasReasoning := b["reasoning"]
			if tt.thinking != nil {
				if !reflect.DeepEqual(b["reasoning"], map[string]any{"effort": "high", "summary": "auto"}) ||
					!reflect.DeepEqual(b["include"], []any{"reasoning.encrypted_content"}) {
					t.Errorf("reasoning %v include %v", b["reasoning"], b["include"])
				}
			} else if hasReasoning || b["include"] != nil || b["thinking"] != nil {
				t.Errorf("thinking unset, yet the body asks for reasoning: %v", b)
			}
			tool := b["tools"].([]any)[0].(map[string]any)
			if tool["type"] != "function" || tool["name"] != "Fake" || tool["strict"] != false || tool["parameters"].(map[string]any)["type"] != "object" {
				t.Errorf("tool = %v", tool)
			}
			var input []map[string]any
			raw, _ := json.Marshal(b["input"])
			_ = json.Unmarshal(raw, &input)
			types := make([]string, len(input))
			for i, it := range input {
				types[i], _ = it["type"].(string)
				if types[i] == "" {
					types[i] = "message:" + it["role"].(string)
				}
			}
			if want := []string{"message:system", "message:user", "reasoning", "message", "function_call", "function_call_output"}; !reflect.DeepEqual(types, want) {
				t.Fatalf("input items %v, want %v\n%s", types, want, raw)
			}
			if parts := input[1]["content"].([]any); len(parts) != 2 || parts[1].(map[string]any)["image_url"] != "data:image/png;base64,AQI=" {
				t.Errorf("user content = %v", input[1]["content"])
			}
			if input[2]["encrypted_content"] != "enc:1" {
				t.Errorf("reasoning sent back = %v", input[2])
			}
			if c := input[3]["content"].([]any)[0].(map[string]any); c["type"] != "output_text" || c["text"] != "Looking." {
				t.Errorf("assistant text sent back = %v", input[3])
			}
			if input[4]["call_id"] != "call_1" || input[4]["name"] != "Shell" || input[4]["arguments"] != `{"command":"ls"}` {
				t.Errorf("call sent back = %v", input[4])
			}
			if input[5]["call_id"] != "call_1" || input[5]["output"] != "(no output)" {
				t.Errorf("tool result sent back = %v", input[5])
			}
		})
	}
}

// native is a stream of Responses events written as they are (they are not chat chunks, so
// the scripted server passes them on untranslated).
func native(events string) scripted.Response {
	return scripted.Reply(scripted.Raw(events), scripted.End())
}

type fakeTool struct{}

func (fakeTool) Name() string            { return "Fake" }
func (fakeTool) Description() string     { return "a fake" }
func (fakeTool) Facts() tools.Facts      { return tools.Facts{} }
func (fakeTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object","properties":{}}`) }
func (fakeTool) Run(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Text("ok"), nil
}

// How a reply ends: a token limit is a reply cut at length (the loop continues it); a
// content filter is a FinishError; response.failed and error events are the provider's
// errors, read like chat completions' (a refused key is Auth, never retried; anything else
// retried); a stream that stops before response.completed is cut; a whole response sent as
// one JSON document is read as the reply.
func TestResponsesEndings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		reply scripted.Response
		check func(t *testing.T, r model.Reply, err error)
	}{
		{"length", scripted.Reply(scripted.Say("half"), scripted.Finish("length")), func(t *testing.T, r model.Reply, err error) {
			if err != nil || r.FinishReason != "length" || r.Text != "half" {
				t.Errorf("reply %+v, %v", r, err)
			}
		}},
		{"content filter", scripted.Reply(scripted.Say("no"), scripted.Finish("content_filter")), func(t *testing.T, r model.Reply, err error) {
			var fe *model.FinishError
			if !errors.As(err, &fe) || fe.Reason != "content_filter" || model.Retryable(err) {
				t.Errorf("err = %v", err)
			}
		}},
		{"failed", native(`data: {"type":"response.created","response":{"status":"in_progress"}}` + "\n\n" +
			`data: {"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The model had an error"}}}` + "\n\n"),
			func(t *testing.T, r model.Reply, err error) {
				var pe *model.ProviderError
				if !errors.As(err, &pe) || pe.StatusCode != 0 || pe.Code != "server_error" || !strings.Contains(err.Error(), "The model had an error") || !model.Retryable(err) {
					t.Errorf("err = %v", err)
				}
			}},
		{"error event with a refused key", scripted.Reply(scripted.Say("a"), scripted.Raw(`data: {"error":{"code":"invalid_api_key","message":"Incorrect API key"}}`+"\n\n"), scripted.Cut()),
			func(t *testing.T, r model.Reply, err error) {
				var pe *model.ProviderError
				if !errors.As(err, &pe) || !pe.Auth() || model.Retryable(err) {
					t.Errorf("err = %v", err)
				}
			}},
		{"nested error event", native(`data: {"type":"error","error":{"type":"rate_limit_error","code":"rate_limit_exceeded","message":"slow down"},"sequence_number":2}` + "\n\n"),
			func(t *testing.T, r model.Reply, err error) {
				var pe *model.ProviderError
				if !errors.As(err, &pe) || pe.Code != "rate_limit_exceeded" || !model.Retryable(err) {
					t.Errorf("err = %v", err)
				}
			}},
		{"cut", scripted.Reply(scripted.Say("half an"), scripted.Cut()), func(t *testing.T, r model.Reply, err error) {
			if !errors.Is(err, model.ErrIncompleteStream) || !model.Retryable(err) {
				t.Errorf("err = %v", err)
			}
		}},
		{"ended before completed", scripted.Reply(scripted.Say("half an"), scripted.End()), func(t *testing.T, r model.Reply, err error) {
			if !errors.Is(err, model.ErrIncompleteStream) {
				t.Errorf("err = %v", err)
			}
		}},
		{"whole document", scripted.Status(200, `{"id":"resp_1","object":"response","status":"completed","output":[`+
			`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"think"}],"encrypted_content":"E"},`+
			`{"type":"message","id":"m","role":"assistant","content":[{"type":"output_text","text":"Hello"}]},`+
			`{"type":"function_call","id":"fc","call_id":"c1","name":"Shell","arguments":"{}"}],`+
			`"usage":{"input_tokens":5,"output_tokens":7,"input_tokens_details":{"cached_tokens":2},"output_tokens_details":{"reasoning_tokens":3}}}`),
			func(t *testing.T, r model.Reply, err error) {
				if err != nil || r.Text != "Hello" || r.Reasoning != "think" || len(r.ToolCalls) != 1 || r.ToolCalls[0].ID != "c1" ||
					r.Usage != (model.TokenUsage{InputTokens: 5, OutputTokens: 7, CachedTokens: 2, ReasoningTokens: 3}) || !strings.Contains(string(r.ReasoningDetails), `"E"`) {
					t.Errorf("reply %+v, %v", r, err)
				}
			}},
		{"empty", scripted.Reply(scripted.Say("")), func(t *testing.T, r model.Reply, err error) {
			if !errors.Is(err, model.ErrEmptyReply) {
				t.Errorf("err = %v", err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, tt.reply)
			r, err := responsesModel(t, srv, nil).Stream(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "go"}}}, model.Handler{})
			tt.check(t, r, err)
		})
	}
}

// Error answers are classified by status and body as for chat completions: a refused key
// (exit 5), a rate limit with the wait the provider asked for, a 400 never retried.
func TestResponsesErrorAnswers(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.Status(401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`),
		scripted.Status(429, scripted.ErrorBody("requests", "Rate limit reached")).Header("Retry-After", "2"),
		scripted.Status(400, `{"error":{"message":"Unsupported parameter: 'reasoning.effort'","type":"invalid_request_error","param":"reasoning.effort","code":"unsupported_parameter"}}`))
	m := responsesModel(t, srv, nil)
	req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "go"}}}
	var pe *model.ProviderError
	if _, err := m.Stream(t.Context(), req, model.Handler{}); !errors.As(err, &pe) || !pe.Auth() || model.Retryable(err) {
		t.Errorf("401: %v", err)
	}
	if _, err := m.Stream(t.Context(), req, model.Handler{}); !errors.As(err, &pe) || pe.StatusCode != 429 || pe.RetryAfter != 2000 || !model.Retryable(err) {
		t.Errorf("429: %v (%+v)", err, pe)
	}
	if _, err := m.Stream(t.Context(), req, model.Handler{}); !errors.As(err, &pe) || pe.StatusCode != 400 || !strings.Contains(err.Error(), "reasoning.effort") || model.Retryable(err) {
		t.Errorf("400: %v", err)
	}
}

// A stream that goes silent is abandoned after the idle timeout, comments or not.
func TestResponsesIdle(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Reply(scripted.Say("a"), scripted.KeepAliveEvery(10*time.Millisecond)))
	m := responses.New(model.Config{Protocol: "openai_responses", BaseURL: srv.URL(), APIKey: "k", Model: "m", IdleTimeout: 200 * time.Millisecond})
	_, err := m.Stream(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "go"}}}, model.Handler{})
	if !errors.Is(err, model.ErrStreamIdle) || !model.Retryable(err) {
		t.Fatalf("err = %v", err)
	}
}

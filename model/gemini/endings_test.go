package gemini_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
)

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
		{name: "an error object after the finish", finish: "stop",
			resp:  scripted.Events(finish("STOP", ""), `{"error":{"code":500,"message":"late","status":"INTERNAL"}}`),
			check: func(err error) bool { return err == nil }},
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

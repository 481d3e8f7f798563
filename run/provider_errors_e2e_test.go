package run_test

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// streamError is an HTTP-200 event stream whose only event is the error object body.
func streamError(body string) scripted.Response {
	return scripted.Reply(scripted.Raw("data: "+body+"\n\n"), scripted.End())
}

// TestProviderErrorShapes: whatever shape an error body has, the HTTP status the transport
// saw decides its class, the message survives, and an auth failure is never retried: a CI
// job that retries on exit 75 must never loop on a bad key.
func TestProviderErrorShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		script   []scripted.Response
		code     int
		reason   string
		status   float64 // http_status in the result; 0: absent
		message  string  // in the result's error message and on stderr
		requests int
	}{
		{name: "401 with error as a string", script: scripted.Scenario(t, "unauthorized-bare"),
			code: 5, reason: "auth", status: 401, message: "Unauthorized", requests: 1},
		{name: "403 with a text body", script: []scripted.Response{scripted.Status(403, "Forbidden: this key may not use the model")},
			code: 5, reason: "auth", status: 403, message: "may not use the model", requests: 1},
		{name: "401 with an HTML page", script: []scripted.Response{scripted.Status(401, "<html><body><h1>401 Authorization Required</h1></body></html>")},
			code: 5, reason: "auth", status: 401, message: "Authorization Required", requests: 1},
		{name: "401 with message at the top level", script: []scripted.Response{scripted.Status(401, `{"message":"token expired","code":"unauthenticated"}`)},
			code: 5, reason: "auth", status: 401, message: "token expired", requests: 1},
		{name: "500 with error and message side by side", script: scripted.Scenario(t, "server-error-flat"),
			code: 75, reason: "transient", status: 500, message: "Unexpected token < in JSON", requests: 3},
		{name: "502 with an empty body", script: []scripted.Response{scripted.Status(502, "").Forever()},
			code: 75, reason: "transient", status: 502, message: "502", requests: 3},
		{name: "invalid_api_key inside a 200 stream", script: scripted.Scenario(t, "stream-auth-error"),
			code: 5, reason: "auth", message: "Incorrect API key provided", requests: 1},
		{name: "authentication_error type inside a stream", script: []scripted.Response{streamError(`{"error":{"type":"authentication_error","message":"invalid x-api-key"}}`)},
			code: 5, reason: "auth", message: "invalid x-api-key", requests: 1},
		{name: "permission error inside a stream", script: []scripted.Response{streamError(`{"error":{"code":"permission_denied","message":"the project may not use this model"}}`)},
			code: 5, reason: "auth", message: "may not use this model", requests: 1},
		{name: "status code 401 inside a stream", script: []scripted.Response{streamError(`{"error":{"code":401,"message":"key revoked"}}`)},
			code: 5, reason: "auth", message: "key revoked", requests: 1},
		{name: "error as a string inside a stream", script: []scripted.Response{streamError(`{"error":"upstream overloaded"}`).Forever()},
			code: 75, reason: "transient", message: "upstream overloaded", requests: 3},
		{name: "overloaded inside a stream", script: []scripted.Response{streamError(`{"error":{"type":"overloaded_error","message":"try later"}}`).Forever()},
			code: 75, reason: "transient", message: "try later", requests: 3},
	}
	for _, tt := range tests {
		for _, format := range []string{"text", "stream-json"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				srv := scripted.New(t, tt.script...)
				r := kimi(t, srv, invocation{args: []string{"--output-format", format, "-p", "do it"}, srv: srv})
				if r.code != tt.code {
					t.Fatalf("exit = %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.code, r.stdout, r.stderr)
				}
				if n := len(srv.Requests()); n != tt.requests {
					t.Errorf("%d requests, want %d", n, tt.requests)
				}
				if !strings.Contains(r.stderr, tt.message) {
					t.Errorf("stderr lacks %q:\n%s", tt.message, r.stderr)
				}
				if format == "text" {
					return
				}
				res := lastResult(t, r)
				if res["terminal_reason"] != tt.reason {
					t.Errorf("terminal_reason = %v, want %s", res["terminal_reason"], tt.reason)
				}
				e, _ := res["error"].(map[string]any)
				if e == nil {
					t.Fatalf("no error in the result: %v", res)
				}
				if got, _ := e["http_status"].(float64); got != tt.status {
					t.Errorf("http_status = %v, want %v", e["http_status"], tt.status)
				}
				if msg, _ := e["message"].(string); !strings.Contains(msg, tt.message) {
					t.Errorf("error message %q lacks %q", msg, tt.message)
				}
				if strings.Contains(e["message"].(string), "provider error: ,") || strings.HasSuffix(e["message"].(string), "provider error: ") {
					t.Errorf("empty provider message: %q", e["message"])
				}
			})
		}
	}
}

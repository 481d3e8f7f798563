package model

import "testing"

func TestParseErrorBody(t *testing.T) {
	tests := []struct {
		body string
		want errorBody
	}{
		{`{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`,
			errorBody{Message: "bad key", Type: "invalid_request_error", Code: "invalid_api_key"}},
		{`{"error":"Unauthorized"}`, errorBody{Message: "Unauthorized"}},
		{`{"error":"SyntaxError","message":"Unexpected token"}`, errorBody{Message: "SyntaxError: Unexpected token"}},
		{`{"message":"token expired","code":"unauthenticated"}`, errorBody{Message: "token expired", Code: "unauthenticated"}},
		{`{"error":{"code":401,"message":"key revoked"}}`, errorBody{Message: "key revoked", Code: "401"}},
		{`{"error":{"code":403,"status":"PERMISSION_DENIED","message":["no","access"]}}`, errorBody{Message: "no, access", Code: "403", Type: "PERMISSION_DENIED"}},
		{`{"error":{"type":"overloaded_error"}}`, errorBody{Message: "overloaded_error", Type: "overloaded_error"}},
		{`{"detail":"Not Found"}`, errorBody{Message: "Not Found"}},
		{"<html><body><h1>502 Bad Gateway</h1>\n<hr>nginx</body></html>", errorBody{Message: "502 Bad Gateway nginx"}},
		{"upstream connect error", errorBody{Message: "upstream connect error"}},
		// Google: an array around the document (Vertex AI's streaming errors), details.
		{`[{"error":{"code":429,"message":"Resource exhausted.","status":"RESOURCE_EXHAUSTED"}}]`,
			errorBody{Message: "Resource exhausted.", Code: "429", Type: "RESOURCE_EXHAUSTED"}},
		{`{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"},{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED"}]}}`,
			errorBody{Message: "slow down", Code: "RATE_LIMIT_EXCEEDED", Type: "RESOURCE_EXHAUSTED", RetryMS: 1500}},
		{`{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED"}]}}`,
			errorBody{Message: "quota", Code: "GenerateRequestsPerDayPerProjectPerModel-FreeTier", Type: "RESOURCE_EXHAUSTED"}},
		{`[]`, errorBody{Message: "[]"}},
		{"", errorBody{}},
	}
	for _, tt := range tests {
		if got := parseErrorBody([]byte(tt.body)); got != tt.want {
			t.Errorf("parseErrorBody(%q)\n got %+v\nwant %+v", tt.body, got, tt.want)
		}
	}
}

func TestProviderErrorAuth(t *testing.T) {
	tests := []struct {
		err  ProviderError
		auth bool
	}{
		{ProviderError{StatusCode: 401}, true},
		{ProviderError{StatusCode: 403}, true},
		{ProviderError{StatusCode: 400, Code: "invalid_api_key"}, true},
		{ProviderError{Code: "invalid_api_key"}, true},
		{ProviderError{Type: "authentication_error"}, true},
		{ProviderError{Type: "invalid_authentication_error"}, true},
		{ProviderError{Code: "permission_denied"}, true},
		{ProviderError{Type: "PERMISSION_DENIED"}, true},
		{ProviderError{Code: "401"}, true},
		{ProviderError{Code: "unauthorized"}, true},
		{ProviderError{Type: "server_error"}, false},
		{ProviderError{Type: "invalid_request_error"}, false},
		{ProviderError{Code: "500"}, false},
		{ProviderError{StatusCode: 429, Code: "invalid_api_key"}, false}, // a rate limit is waited out
		{ProviderError{StatusCode: 500, Type: "authentication_error"}, false},
		{ProviderError{StatusCode: 404}, false},
	}
	for _, tt := range tests {
		if got := tt.err.Auth(); got != tt.auth {
			t.Errorf("%+v: Auth() = %v, want %v", tt.err, got, tt.auth)
		}
		if tt.auth && Retryable(&tt.err) {
			t.Errorf("%+v: an auth failure is retryable", tt.err)
		}
	}
}

func TestStreamErrorLine(t *testing.T) {
	for line, want := range map[string]bool{
		`data: {"error":{"message":"x"}}`:                       true,
		`data:{"error":"x"}`:                                    true,
		`{"error":{"code":"invalid_api_key"}}`:                  true,
		`data: {"error":null,"choices":[]}`:                     false,
		`data: {"choices":[{"delta":{"content":"\"error\""}}]}`: false,
		`data: [DONE]`:                                          false,
		`: keep-alive`:                                          false,
	} {
		if got := streamErrorLine([]byte(line)) != nil; got != want {
			t.Errorf("streamErrorLine(%q) = %v, want %v", line, got, want)
		}
	}
}

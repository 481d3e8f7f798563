package run_test

import (
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestKimiPrintExitCodes follows Kimi CLI's tests/ui_and_conv/test_print_exit_code.py case
// by case, through the binary. Where Kimi exits 0 or 75 kimi-run does too; where Kimi exits 1
// kimi-run says more (README "Coming from Kimi CLI", "What differs"): 5 for refused
// credentials, 3 for the step limit. kimiCode is what Kimi CLI exits with.
func TestKimiPrintExitCodes(t *testing.T) {
	t.Parallel()
	step := scripted.ToolCalls(scripted.Call("SetTodoList", `{}`))
	tests := []struct {
		kimiTest string
		script   []scripted.Response
		baseURL  string // instead of the scripted server
		args     []string
		code     int
		kimiCode int
	}{
		{kimiTest: "test_success_on_normal_run", script: []scripted.Response{scripted.Text("ok")}, code: 0, kimiCode: 0},
		{kimiTest: "test_429_rate_limit_is_retryable", script: []scripted.Response{scripted.Status(429, scripted.ErrorBody("rate_limit", "slow down")).Forever()}, code: 75, kimiCode: 75},
		{kimiTest: "test_500_server_error_is_retryable", script: []scripted.Response{scripted.Status(500, scripted.ErrorBody("server_error", "boom")).Forever()}, code: 75, kimiCode: 75},
		{kimiTest: "test_502_bad_gateway_is_retryable", script: []scripted.Response{scripted.Status(502, scripted.ErrorBody("server_error", "bad gateway")).Forever()}, code: 75, kimiCode: 75},
		{kimiTest: "test_503_service_unavailable_is_retryable", script: []scripted.Response{scripted.Status(503, scripted.ErrorBody("server_error", "overloaded")).Forever()}, code: 75, kimiCode: 75},
		{kimiTest: "test_504_gateway_timeout_is_retryable", script: []scripted.Response{scripted.Status(504, scripted.ErrorBody("server_error", "timeout")).Forever()}, code: 75, kimiCode: 75},
		{kimiTest: "test_connection_error_returns_retryable", baseURL: "http://127.0.0.1:1/v1", code: 75, kimiCode: 75},
		{kimiTest: "test_400_bad_request_is_failure", script: []scripted.Response{scripted.Status(400, scripted.ErrorBody("invalid_request_error", "bad"))}, code: 1, kimiCode: 1},
		{kimiTest: "test_401_unauthorized_is_failure", script: []scripted.Response{scripted.Status(401, scripted.ErrorBody("invalid_authentication_error", "bad key"))}, code: 5, kimiCode: 1},
		{kimiTest: "test_403_forbidden_is_failure", script: []scripted.Response{scripted.Status(403, scripted.ErrorBody("permission_denied", "no"))}, code: 5, kimiCode: 1},
		{kimiTest: "test_max_steps_returns_failure", script: []scripted.Response{step.Forever()}, args: []string{"--max-steps-per-turn", "2"}, code: 3, kimiCode: 1},
	}
	for _, tt := range tests {
		t.Run(tt.kimiTest, func(t *testing.T) {
			t.Parallel()
			inv := invocation{args: append([]string{"--print", "-p", "go"}, tt.args...)}
			var srv *scripted.Server
			if tt.baseURL != "" {
				inv.env = map[string]string{"KIMI_BASE_URL": tt.baseURL}
			} else {
				srv = scripted.New(t, tt.script...)
			}
			r := kimi(t, srv, inv)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d (Kimi CLI: %d)\n%s", r.code, tt.code, tt.kimiCode, r.stderr)
			}
		})
	}
}

package run_test

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestFallbackModel: --fallback-model takes over a step whose calls kept failing
// transiently after the retries (the exit-75 class), once, with a warning saying so; a
// failure that is not transient is not retried on it (issue 21 #12).
func TestFallbackModel(t *testing.T) {
	t.Parallel()
	overloaded := scripted.Status(529, scripted.ErrorBody("overloaded_error", "the engine is overloaded"))
	tests := []struct {
		name   string
		script []scripted.Response
		code   int
		models []string // the model of each request
	}{
		{name: "overloaded, then the fallback answers",
			script: []scripted.Response{overloaded, overloaded, scripted.ToolCalls(scripted.Call("SetTodoList", `{}`)), scripted.Text("Done.")},
			code:   0, models: []string{"test-model", "test-model", "backup-model", "backup-model"}},
		{name: "the fallback fails too",
			script: []scripted.Response{overloaded.Forever()},
			code:   75, models: []string{"test-model", "test-model", "backup-model", "backup-model"}},
		{name: "not transient",
			script: []scripted.Response{scripted.Status(400, scripted.ErrorBody("invalid_request_error", "bad"))},
			code:   1, models: []string{"test-model"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, tt.script...)
			r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--max-retries", "1", "--fallback-model", "backup-model", "-p", "x"}})
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			var got []string
			for _, req := range srv.Requests() {
				m, _ := req.Body["model"].(string)
				got = append(got, m)
			}
			if strings.Join(got, ",") != strings.Join(tt.models, ",") {
				t.Errorf("models asked = %v, want %v", got, tt.models)
			}
			evs := events(t, r.stdout)
			switched := testkit.Any(evs, "warning", func(e map[string]any) bool {
				return strings.Contains(e["message"].(string), "trying the step again on the fallback model backup-model")
			})
			if switched != (len(tt.models) > 2) {
				t.Errorf("fallback warning = %v\n%s", switched, r.stdout)
			}
			lastResult(t, r)
		})
	}
}

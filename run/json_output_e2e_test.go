package run_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/eventschema"
	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestOutputFormatJSON: --output-format json prints one JSON object when the run ends, the
// result event, as Claude Code's and Gemini CLI's -p do, for `jq -r .final_text`; progress
// stays on stderr (issue 21 #9).
func TestOutputFormatJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script []scripted.Response
		args   []string
		code   int
		final  string
		kind   string
	}{
		{name: "answer", script: []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo hi"}`)), scripted.Text("All done.")},
			code: 0, final: "All done."},
		{name: "refused", script: scripted.Scenario(t, "unauthorized"), code: 5, kind: "auth"},
		{name: "usage error", args: []string{"--ralph", "-5"}, code: 2, kind: "usage"},
		{name: "flags that do not parse", args: []string{"--no-such-flag"}, code: 2, kind: "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var srv *scripted.Server
			if tt.script != nil {
				srv = scripted.New(t, tt.script...)
			}
			r := kimi(t, srv, invocation{args: append([]string{"--output-format", "json", "-p", "do it"}, tt.args...)})
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			if strings.Count(r.stdout, "\n") != 1 || !strings.HasSuffix(r.stdout, "\n") {
				t.Fatalf("stdout is not one line:\n%s", r.stdout)
			}
			if err := eventschema.Validate([]byte(strings.TrimSpace(r.stdout))); err != nil {
				t.Errorf("not a result event of docs/events.schema.json: %v", err)
			}
			var res map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
				t.Fatal(err)
			}
			if res["type"] != "result" || int(res["exit_code"].(float64)) != tt.code || res["final_text"] != tt.final {
				t.Errorf("result = %v", res)
			}
			if tt.kind != "" {
				if e, _ := res["error"].(map[string]any); e == nil || e["kind"] != tt.kind {
					t.Errorf("error = %v, want kind %s", res["error"], tt.kind)
				}
			}
			if tt.code == 0 && !strings.Contains(r.stderr, "Shell  echo hi") {
				t.Errorf("no progress on stderr:\n%s", r.stderr)
			}
		})
	}
}

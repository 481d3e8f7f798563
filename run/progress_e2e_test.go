package run_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestFailedToolShowsItsCause: a CI log must show why a step failed. The cause of a failed
// command is usually at the end of its output, so stderr shows the last lines of it,
// indented under the tool's line, and no more than a few.
func TestFailedToolShowsItsCause(t *testing.T) {
	t.Parallel()
	cmd := `for i in $(seq 1 40); do printf 'line-%02d\n' $i; done; echo 'main.go:3:2: undefined: frobnicate' >&2; exit 3`
	srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":`+jsonString(cmd)+`}`)), scripted.Text("It does not build."))
	r := kimi(t, srv, invocation{args: []string{"-p", "build it"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^WRN {4,}main\.go:3:2: undefined: frobnicate$`).MatchString(r.stderr) {
		t.Errorf("stderr does not show the cause, indented, under the failed call:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "exit code 3") || !strings.Contains(r.stderr, "line-40") {
		t.Errorf("stderr lacks the status or the last lines:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "line-01") || strings.Contains(r.stderr, "line-20") {
		t.Errorf("stderr shows the whole output, not its last lines:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "ERROR: ") {
		t.Errorf("the error result's marker for the model is repeated on stderr:\n%s", r.stderr)
	}
}

// TestDebugShowsToolOutputHeads: --log-level debug shows the head of every tool's output.
func TestDebugShowsToolOutputHeads(t *testing.T) {
	t.Parallel()
	script := func() *scripted.Server {
		return scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"seq 1 50 | sed s/^/item-/"}`)), scripted.Text("Listed."))
	}
	r := kimi(t, script(), invocation{args: []string{"-p", "list", "--log-level", "debug"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^DBG {4,}item-1$`).MatchString(r.stderr) || !strings.Contains(r.stderr, "item-3\n") {
		t.Errorf("debug stderr lacks the head of the output:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "item-30\n") {
		t.Errorf("debug stderr shows the whole output, not its head:\n%s", r.stderr)
	}
	r = kimi(t, script(), invocation{args: []string{"-p", "list"}})
	if strings.Contains(r.stderr, "item-1\n") {
		t.Errorf("info stderr shows a successful tool's output:\n%s", r.stderr)
	}
}

// TestLongErrorsKeepTheirCause: a long error is never cut before its cause, which comes
// last in a wrapped error.
func TestLongErrorsKeepTheirCause(t *testing.T) {
	t.Parallel()
	msg := "Invalid request: " + strings.Repeat("the request body did not validate against the schema; ", 8) + "CAUSE: messages[3].tool_calls[0].function.arguments is not valid JSON"
	for _, format := range []string{"text", "stream-json"} {
		srv := scripted.New(t, scripted.Status(400, scripted.ErrorBody("invalid_request_error", msg)))
		r := kimi(t, srv, invocation{args: []string{"--output-format", format, "-p", "x"}})
		if r.code != 1 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "CAUSE: messages[3].tool_calls[0].function.arguments is not valid JSON") {
			t.Errorf("%s: stderr cut the error before its cause:\n%s", format, r.stderr)
		}
		if format == "stream-json" {
			res := lastResult(t, r)
			if !strings.Contains(res["error"].(map[string]any)["message"].(string), "CAUSE: messages[3]") {
				t.Errorf("result error lost its cause: %v", res["error"])
			}
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

package run_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// The chat-completions shapes of issue 30 part 2, replayed from real recordings through the
// binary: each ends with exit 0, its answer on stdout, its usage in the result, and no
// request repeated (before, each was retried as a cut stream until exit 75).
func TestReplayStreamShapes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		file        string
		final       string // a prefix of the final text
		thinking    string // a prefix of the thinking, when there is some
		in, out     float64
		requests    int
		textOutFull string // text output's stdout, when checked whole
	}{
		{file: "mistral-thinking-parts", final: "To cross the street safely", thinking: "Okay, the user is asking", in: 10, out: 232, requests: 1},
		{file: "snowflake-done-no-finish", final: "4", in: 22, out: 5, requests: 1, textOutFull: "4\n"},
		{file: "mistral-plain-thinking", final: "Crossing a river is quite different", thinking: "**Analogizing crossing a river**", in: 664, out: 747, requests: 1},
	} {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			srv, r, evs := replay(t, recording(t, tt.file))
			if r.code != 0 {
				t.Fatalf("exit = %d\n%s", r.code, r.stderr)
			}
			res := lastResult(t, r)
			if final, _ := res["final_text"].(string); !strings.HasPrefix(final, tt.final) {
				t.Errorf("final text = %q", final)
			}
			var think strings.Builder
			for _, e := range testkit.OfType(evs, "thinking") {
				think.WriteString(e["delta"].(string))
			}
			if !strings.HasPrefix(think.String(), tt.thinking) || (tt.thinking == "" && think.Len() > 0) {
				t.Errorf("thinking = %.60q, want it to start %q", think.String(), tt.thinking)
			}
			if u := usageTotals(t, r); u["input_tokens"].(float64) < tt.in || u["output_tokens"].(float64) < tt.out {
				t.Errorf("result usage = %v", u)
			}
			if n := len(srv.Requests()); n != tt.requests || len(testkit.OfType(evs, "retry")) != 0 {
				t.Errorf("%d requests (want %d), %d retry events", n, tt.requests, len(testkit.OfType(evs, "retry")))
			}
			if tt.textOutFull != "" {
				srv := scriptedFrom(t, tt.file)
				if r := kimi(t, srv, invocation{args: []string{"-p", "go"}, srv: srv}); r.code != 0 || r.stdout != tt.textOutFull {
					t.Errorf("text output: exit %d, stdout %q", r.code, r.stdout)
				}
			}
		})
	}
}

// A server that ignores stream:true (recorded Snowflake Cortex bodies, finish_reason
// empty): the tool call in the first whole reply runs, the second ends the run, and Kimi's
// message lines show both.
func TestReplayPlainJSONReply(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := scriptedFrom(t, "plain-json-reply")
	// The recorded call is get_weather, which kimi-run does not have: the model is told so
	// and the recorded answer ends the run.
	r := kimi(t, srv, invocation{dir: dir, args: []string{"--print", "--output-format", "stream-json", "-p", "weather?"}, srv: srv})
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 {
		t.Fatalf("Kimi lines = %s", r.stdout)
	}
	calls, _ := lines[0]["tool_calls"].([]any)
	if len(calls) != 1 || calls[0].(map[string]any)["id"] != "toolu_bdrk_015BgHUFs4HS1TVWWwNRNxip" {
		t.Errorf("first line = %v", lines[0])
	}
	if lines[1]["role"] != "tool" || lines[2]["content"] != "The weather in Mexico City is currently sunny with a pleasant temperature of 25°C." {
		t.Errorf("lines = %v", lines[1:])
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// scriptedFrom serves a provider recording. The recordings come from other projects' test
// suites, whose models call those suites' own tools (weather, get_weather, add): kimi-run
// offers none of them, and the error result that follows is part of what is replayed.
func scriptedFrom(t *testing.T, name string) *scripted.Server {
	t.Helper()
	return recorded(t, recording(t, name)...)
}

// recorded serves responses taken from a provider recording; see scriptedFrom.
func recorded(t *testing.T, script ...scripted.Response) *scripted.Server {
	t.Helper()
	srv := scripted.New(t, script...)
	srv.AllowUnknownTools()
	return srv
}

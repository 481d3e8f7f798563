package run_test

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestAnswerCutAtTheTokenLimit: a final answer cut by finish_reason "length" is not a
// finished answer. The model is asked to go on (at most twice); if it is still cut, the run
// ends with exit 3 and terminal_reason "truncated", never exit 0.
func TestAnswerCutAtTheTokenLimit(t *testing.T) {
	t.Parallel()
	cut := func(s string) scripted.Response { return scripted.Reply(scripted.Say(s), scripted.Finish("length")) }
	t.Run("continued", func(t *testing.T) {
		srv := scripted.New(t, cut("The report: part one,"), scripted.Text(" and part two."))
		r := kimi(t, srv, invocation{args: []string{"-p", "write the report"}})
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if r.stdout != "The report: part one, and part two.\n" {
			t.Errorf("stdout = %q, want both parts", r.stdout)
		}
		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		msgs := reqs[1].Messages()
		if len(msgs) < 2 || msgs[len(msgs)-2]["content"] != "The report: part one," || !strings.Contains(msgs[len(msgs)-1]["content"].(string), "cut off") {
			t.Errorf("continuation request = %v", msgs)
		}
		if !strings.Contains(r.stderr, "token limit") {
			t.Errorf("stderr does not say the reply was cut:\n%s", r.stderr)
		}
	})
	t.Run("still cut", func(t *testing.T) {
		srv := scripted.New(t, cut("one,"), cut(" two,"), cut(" three,"))
		r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "write the report"}})
		if r.code != 3 {
			t.Fatalf("exit %d, want 3\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if n := len(srv.Requests()); n != 3 {
			t.Errorf("%d requests, want 3 (the answer and two continuations)", n)
		}
		res := lastResult(t, r)
		if res["terminal_reason"] != "truncated" || res["final_text"] != "one, two, three," {
			t.Errorf("result = %v", res)
		}
	})
	t.Run("still cut, text", func(t *testing.T) {
		srv := scripted.New(t, cut("one,"), cut(" two,"), cut(" three,"))
		r := kimi(t, srv, invocation{args: []string{"-p", "write the report"}})
		if r.code != 3 || r.stdout != "one, two, three,\n" {
			t.Errorf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
		}
	})
}

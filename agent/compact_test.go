package agent_test

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/event"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/internal/scripted"
)

func roles(msgs []map[string]any) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m["role"].(string))
	}
	return out
}

func TestCompactionSummarisesOlderMessages(t *testing.T) {
	h := newHarness(t, []scripted.Response{
		scripted.Text("First answer about the parser."),
		scripted.Text("<current_focus>Adding tests for the parser.</current_focus>"),
		scripted.Text("Second answer."),
	})
	// Every scripted reply reports 120 tokens; a 130-token window must compact before turn 2.
	h.agent.Compaction = agent.Compaction{MaxContext: 130}
	if _, err := h.turn(t, "explain the parser"); err != nil {
		t.Fatal(err)
	}
	out, err := h.turn(t, "now write tests")
	if err != nil {
		t.Fatal(err)
	}
	if out.FinalText != "Second answer." {
		t.Errorf("final = %q", out.FinalText)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	summary := reqs[1]
	if _, ok := summary.Body["tools"]; ok {
		t.Errorf("the summary request offered tools")
	}
	ask := summary.Messages()[1]["content"].(string)
	if !strings.Contains(ask, "explain the parser") || !strings.Contains(ask, "<current_focus>") {
		t.Errorf("summary request = %q", ask)
	}
	msgs := reqs[2].Messages()
	if got := strings.Join(roles(msgs), ","); got != "system,user,assistant,user" {
		t.Fatalf("roles after compaction = %s", got)
	}
	if c := msgs[1]["content"].(string); !strings.Contains(c, "Adding tests for the parser") || strings.Contains(c, "explain the parser") {
		t.Errorf("compacted message = %q", c)
	}
	if msgs[3]["content"] != "now write tests" {
		t.Errorf("latest prompt lost: %v", msgs[3])
	}
	begin, end := h.sink.Of(event.TypeCompactionBegin), h.sink.Of(event.TypeCompactionEnd)
	if len(begin) != 1 || len(end) != 1 {
		t.Fatalf("compaction events: %d begin, %d end", len(begin), len(end))
	}
	if e := end[0].Data.(event.CompactionEnd); e.Fallback || e.TokensBefore <= 0 {
		t.Errorf("compaction_end = %+v", e)
	}
}

func TestCompactionFallsBackToTruncation(t *testing.T) {
	h := newHarness(t, []scripted.Response{
		scripted.Text("one"),
		scripted.Text("two"),
		scripted.Status(400, scripted.ErrorBody("invalid_request_error", "prompt is too long")),
		scripted.Text("three"),
	})
	h.agent.Compaction = agent.Compaction{MaxContext: 130}
	h.agent.Compaction.MaxContext = 0 // let two turns accumulate first
	for _, p := range []string{"first task", "second task"} {
		if _, err := h.turn(t, p); err != nil {
			t.Fatal(err)
		}
	}
	h.agent.Compaction.MaxContext = 130
	out, err := h.turn(t, "third task")
	if err != nil {
		t.Fatalf("a failed compaction ended the run: %v", err)
	}
	if out.FinalText != "three" {
		t.Errorf("final = %q", out.FinalText)
	}
	msgs := h.srv.Requests()[3].Messages()
	var all []string
	for _, m := range msgs {
		c, _ := m["content"].(string)
		all = append(all, c)
	}
	joined := strings.Join(all, "|")
	if !strings.Contains(joined, "first task") || !strings.Contains(joined, "dropped") || !strings.Contains(joined, "third task") {
		t.Errorf("after fallback the model saw: %q", joined)
	}
	if strings.Contains(joined, "second task") {
		t.Errorf("fallback kept a middle message: %q", joined)
	}
	end := h.sink.Of(event.TypeCompactionEnd)
	if len(end) != 1 || !end[0].Data.(event.CompactionEnd).Fallback {
		t.Errorf("compaction_end = %+v", end)
	}
}

func TestCompletionBudgetShrinksWithContext(t *testing.T) {
	h := newHarness(t, []scripted.Response{scripted.Text("ok")})
	h.agent.Compaction = agent.Compaction{MaxContext: 100_000, CapCompletion: true}
	if _, err := h.turn(t, "hi"); err != nil {
		t.Fatal(err)
	}
	got, _ := h.srv.Requests()[0].Body["max_completion_tokens"].(float64)
	if got <= 90_000 || got >= 100_000-1024 {
		t.Errorf("max_completion_tokens = %v", got)
	}
}

func TestRewindToAMarkSurvivesCompaction(t *testing.T) {
	h := newHarness(t, []scripted.Response{
		scripted.Text("one"),
		scripted.Text("<current_focus>two</current_focus>"),
		scripted.Text("two"),
		scripted.Text("after the rewind"),
	})
	if _, err := h.turn(t, "first"); err != nil {
		t.Fatal(err)
	}
	mark, err := h.agent.Mark(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	h.agent.Compaction = agent.Compaction{MaxContext: 130}
	if _, err := h.turn(t, "second"); err != nil {
		t.Fatal(err)
	}
	if len(h.sink.Of(event.TypeCompactionEnd)) != 1 {
		t.Fatalf("no compaction happened")
	}
	h.agent.Compaction = agent.Compaction{}
	if err := h.agent.Rewind(t.Context(), mark); err != nil {
		t.Fatalf("rewind after compaction: %v", err)
	}
	if _, err := h.turn(t, "third"); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(roles(h.srv.Requests()[3].Messages()), ",")
	if got != "system,user,assistant,user" {
		t.Errorf("after the rewind the model saw %s, want the marked conversation plus the new prompt", got)
	}
}

package agent_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/event"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

func TestLoopGuardStopsARepeatingModel(t *testing.T) {
	h := newHarness(t, []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{"command":"make", "timeout": 5}`)).Forever()}, "Shell")
	out, err := h.turn(t, "build")
	if err != nil {
		t.Fatal(err)
	}
	if out.StopReason != event.StopRepeat || out.Steps != 12 {
		t.Fatalf("outcome = %+v, want repeat after 12 steps", out)
	}
	// From the third identical step on, the model is told it repeats itself.
	results := h.sink.Of(event.TypeToolResult)
	if strings.Contains(results[1].Data.(event.ToolResult).Output, "<system>") {
		t.Errorf("reminder too early: %q", results[1].Data.(event.ToolResult).Output)
	}
	if !strings.Contains(results[2].Data.(event.ToolResult).Output, "already made this exact Shell call") {
		t.Errorf("no reminder at step 3: %q", results[2].Data.(event.ToolResult).Output)
	}
	if !strings.Contains(results[9].Data.(event.ToolResult).Output, "stuck") {
		t.Errorf("no stuck warning at step 10: %q", results[9].Data.(event.ToolResult).Output)
	}
}

func TestLoopGuardIgnoresInterleavedRepeats(t *testing.T) {
	var script []scripted.Response
	for i := 0; i < 8; i++ {
		script = append(script,
			scripted.ToolCalls(scripted.Call("Shell", `{"command":"go test ./..."}`)),
			scripted.ToolCalls(scripted.Call("Shell", fmt.Sprintf(`{"command":"edit %d"}`, i))))
	}
	script = append(script, scripted.Text("fixed"))
	h := newHarness(t, script, "Shell")
	out, err := h.turn(t, "fix it")
	if err != nil {
		t.Fatal(err)
	}
	if out.StopReason != event.StopCompleted {
		t.Fatalf("outcome = %+v", out)
	}
	for _, e := range h.sink.Of(event.TypeToolResult) {
		if strings.Contains(e.Data.(event.ToolResult).Output, "<system>") {
			t.Errorf("test runs between edits drew a reminder: %q", e.Data.(event.ToolResult).Output)
		}
	}
}

func TestIdenticalCallsInOneReplyRunOnce(t *testing.T) {
	h := newHarness(t, []scripted.Response{
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"ls","timeout":5}`), scripted.Call("Shell", `{"timeout":5,"command":"ls"}`)),
		scripted.Text("done"),
	}, "Shell")
	if _, err := h.turn(t, "go"); err != nil {
		t.Fatal(err)
	}
	if got := h.tools["Shell"].got(); len(got) != 1 {
		t.Errorf("Shell ran %d times, want once", len(got))
	}
	msgs := h.srv.Requests()[1].Messages()
	var tool int
	for _, m := range msgs {
		if m["role"] == "tool" {
			tool++
			if m["content"] != "Shell output" {
				t.Errorf("result = %v", m["content"])
			}
		}
	}
	if tool != 2 {
		t.Errorf("%d tool results sent back, want one per call", tool)
	}
}

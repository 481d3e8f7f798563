package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/tools"
)

func TestThousandsOfCallsInOneReplyAreBounded(t *testing.T) {
	var calls []scripted.Part
	for i := 0; i < 2000; i++ {
		calls = append(calls, scripted.Call("Shell", fmt.Sprintf(`{"command":"echo %d"}`, i)))
	}
	h := newHarness(t, []scripted.Response{scripted.ToolCalls(calls...), scripted.Text("ok")}, "Shell")
	out, err := h.turn(t, "go wild")
	if err != nil {
		t.Fatal(err)
	}
	if out.FinalText != "ok" {
		t.Errorf("final = %q", out.FinalText)
	}
	if ran := len(h.tools["Shell"].got()); ran != agent.MaxCallsPerReply {
		t.Errorf("ran %d calls, want the cap of %d", ran, agent.MaxCallsPerReply)
	}
	results := 0
	for _, m := range h.srv.Requests()[1].Messages() {
		if m["role"] == "tool" {
			results++
		}
	}
	if results != 2000 {
		t.Errorf("%d results sent back, want one per call", results)
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestHugeArgumentsAndOddText(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	// Real providers send long arguments in large chunks; the builder's 6-byte pieces would
	// make this a test of the test server.
	chunk := func(args string, finish string) string {
		return `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"big","type":"function","function":{"name":"WriteFile","arguments":` +
			strconvQuote(args) + `}}]},"finish_reason":` + finish + `}]}` + "\n\n"
	}
	h := newHarness(t, []scripted.Response{
		scripted.Reply(scripted.Raw(chunk(`{"content":"`+big[:1<<20], "null")), scripted.Raw(chunk(big[1<<20:]+`"}`, `"tool_calls"`)), scripted.End()),
		scripted.Text("bad bytes \xff\xfe and a NUL \x00 survive"),
	}, "WriteFile")
	var got int
	h.tools["WriteFile"].run = func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		var a struct{ Content string }
		json.Unmarshal(args, &a)
		got = len(a.Content)
		return tools.Text("written"), nil
	}
	out, err := h.turn(t, "write a lot")
	if err != nil {
		t.Fatal(err)
	}
	if got != len(big) {
		t.Errorf("tool got %d bytes of arguments, want %d", got, len(big))
	}
	if !strings.Contains(out.FinalText, "survive") {
		t.Errorf("final = %q", out.FinalText)
	}
}

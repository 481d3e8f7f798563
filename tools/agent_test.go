package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// waitingSubagent runs until its context ends and answers with what it had so far.
type waitingSubagent struct{ got SubagentCall }

func (w *waitingSubagent) RunSubagent(ctx context.Context, call SubagentCall) (SubagentAnswer, error) {
	w.got = call
	<-ctx.Done()
	return SubagentAnswer{ID: "a1", Text: "halfway there", Kind: "coder"}, ctx.Err()
}

// TestAgentTimeoutStopsTheSubagent: an Agent call's timeout that runs out ends the
// subagent's context, and the result says the timeout stopped it, with its last message.
// Timeouts outside Kimi's 30..3600 are refused; a string timeout is read as a number.
func TestAgentTimeoutStopsTheSubagent(t *testing.T) {
	defer func(s time.Duration) { agentSecond = s }(agentSecond)
	agentSecond = time.Millisecond
	sub := &waitingSubagent{}
	tool := NewAgent(Env{Subagent: sub})
	res, err := tool.Run(context.Background(), json.RawMessage(`{"description":"slow","prompt":"go","timeout":"30","model":"m2","resume":"a0"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Output, "its timeout of 30s ran out") || !strings.Contains(res.Output, "halfway there") {
		t.Errorf("result %+v", res)
	}
	if sub.got.Model != "m2" || sub.got.Resume != "a0" {
		t.Errorf("the subagent was asked %+v", sub.got)
	}
	for _, args := range []string{`{"description":"x","prompt":"go","timeout":29}`, `{"description":"x","prompt":"go","timeout":3601}`} {
		res, _ := tool.Run(context.Background(), json.RawMessage(args))
		if !res.IsError || !strings.Contains(res.Output, "timeout must be between 30 and 3600") {
			t.Errorf("%s: %+v", args, res)
		}
	}
}

package session

import (
	"reflect"
	"testing"

	"github.com/kimi-run/kimi-run/model"
)

// A session line keeps where the reasoning came from, so a resumed run sends OpenRouter's
// reasoning_details back unchanged and Groq's reasoning in its own field.
func TestSessionKeepsReasoningField(t *testing.T) {
	for _, m := range []model.Message{
		{Role: model.RoleAssistant, Content: "4", Reasoning: "add", ReasoningField: model.ReasoningDetails,
			ReasoningDetails: []byte(`[{"format":"anthropic-claude-v1","index":0,"signature":"c2ln","text":"add","type":"reasoning.text"}]`)},
		{Role: model.RoleAssistant, Reasoning: "call it", ReasoningField: model.ReasoningText, ToolCalls: []model.CallSpec{{ID: "c1", Name: "Shell", Arguments: "{}"}}},
		{Role: model.RoleAssistant, Content: "plain", Reasoning: "think"},
	} {
		line, err := encodeLine(toMessageRecord(m), nil)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := decodeRecord(line[:len(line)-1])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rec.msg, m) {
			t.Errorf("round trip of %s\n got %+v\nwant %+v", line, rec.msg, m)
		}
	}
}

package model_test

import (
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
)

// TestReasoningKey: an openai_legacy provider's reasoning_key names the one field the
// reasoning is read from and sent back in, as Kimi CLI's OpenAILegacy does (kosong's
// tests/api_snapshot_tests/test_openai_legacy.py: the reasoning goes back in that field on
// an assistant message with text, tool calls or not); "" turns the round trip off: none is
// read, none is sent. Without a key every known field is read, as before.
func TestReasoningKey(t *testing.T) {
	t.Parallel()
	// One stream carrying thoughts in three fields at once.
	stream := scripted.Reply(
		scripted.Raw(`data: {"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"from rc. ","reasoning":"from r. ","thoughts":"from thoughts. "}}]}`+"\n\n"),
		scripted.Say("4."),
	)
	history := []model.Message{
		{Role: model.RoleUser, Content: "What is 2+2?"},
		{Role: model.RoleAssistant, Content: "4.", Reasoning: "Thinking..."},
		{Role: model.RoleUser, Content: "Thanks!"},
	}
	key := func(s string) *string { return &s }
	for _, tt := range []struct {
		name    string
		key     *string
		read    string            // the reasoning read from the stream
		sent    map[string]string // the fields the earlier assistant message carried
		notSent []string
	}{
		{"reasoning_content", key("reasoning_content"), "from rc. ", map[string]string{"reasoning_content": "Thinking..."}, []string{"reasoning"}},
		{"reasoning", key("reasoning"), "from r. ", map[string]string{"reasoning": "Thinking..."}, []string{"reasoning_content"}},
		{"a field of its own", key("thoughts"), "from thoughts. ", map[string]string{"thoughts": "Thinking..."}, []string{"reasoning_content", "reasoning"}},
		{"empty: off", key(""), "", nil, []string{"reasoning_content", "reasoning", "thoughts"}},
		// No key: kimi-run's own reading (the strongest field) and no reasoning on a message
		// without tool calls.
		{"no key", nil, "from rc. ", nil, []string{"reasoning_content", "reasoning", "thoughts"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, stream)
			m := model.NewOpenAI(model.Config{BaseURL: srv.URL(), APIKey: "k", Model: "deepseek-reasoner", IdleTimeout: time.Minute, ReasoningKey: tt.key})
			var streamed string
			reply, err := m.Stream(t.Context(), model.Request{Messages: history}, model.Handler{Thinking: func(s string) { streamed += s }})
			if err != nil {
				t.Fatal(err)
			}
			if reply.Reasoning != tt.read || streamed != tt.read || reply.Text != "4." {
				t.Errorf("read reasoning %q (streamed %q), text %q; want %q", reply.Reasoning, streamed, reply.Text, tt.read)
			}
			sent := srv.Requests()[0].Messages()[1]
			for field, want := range tt.sent {
				if sent[field] != want {
					t.Errorf("assistant message %v: %s = %v, want %q", sent, field, sent[field], want)
				}
			}
			for _, field := range tt.notSent {
				if _, ok := sent[field]; ok {
					t.Errorf("assistant message %v carries %s", sent, field)
				}
			}
		})
	}
}

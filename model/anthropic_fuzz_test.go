package model

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// FuzzAnthropicStream serves arbitrary bytes as a Messages API stream to the real client,
// seeded with the recorded streams of testdata/providers. Whatever arrives, Stream must
// not panic or hang, every failure must be one of the typed outcomes a run maps to an exit
// code, and a reply must be coherent: unique call ids, each call handed out once, stored
// blocks that are JSON and go back as blocks.
func FuzzAnthropicStream(f *testing.F) {
	for _, s := range []string{
		sse(append(append([]string{start(3, 1, 2)}, thinkingBlock(0, "sig", "hm")...), stopWith("end_turn", 2), evStop)...),
		sse(append(toolBlock(0, "dup", "A", `{"x":`, `1}`), toolBlock(1, "dup", "B", `{}`)...)...) + sse(stopWith("tool_use", 1)),
		"data: {\"type\":\"content_block_delta\",\"index\":7,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n",
		"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"odd\",\"n\":1}}\n\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"[\"}}\n\n" + sse(stopWith("pause_turn", 1)),
		"data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n\n",
		`{"type":"message","content":[{"type":"text","text":"x"}],"stop_reason":null}`,
	} {
		f.Add([]byte(s))
	}
	for _, name := range []string{"anthropic-thinking-tool", "anthropic-redacted-thinking", "anthropic-cache-compaction"} {
		raw, err := os.ReadFile(filepath.Join("..", "testdata", "providers", name+".txtar"))
		if err != nil {
			f.Fatal(err)
		}
		if _, body, ok := strings.Cut(string(raw), "\n\nevent: "); ok {
			f.Add([]byte("event: " + body))
		}
	}
	var (
		mu   sync.Mutex
		body []byte
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b := body
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(b)
	}))
	defer srv.Close()
	m := NewAnthropic(Config{BaseURL: srv.URL, APIKey: "k", Model: "claude-x", IdleTimeout: 5 * time.Second})

	f.Fuzz(func(t *testing.T, data []byte) {
		mu.Lock()
		body = data
		mu.Unlock()
		seen := map[string]int{}
		h := Handler{ToolCall: func(c CallSpec) { seen[c.ID]++ }}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		reply, err := m.Stream(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "x"}}}, h)
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("stream hung")
		}
		if err != nil && !Retryable(err) {
			var pe *ProviderError
			var fe *FinishError
			if !errors.As(err, &pe) && !errors.As(err, &fe) {
				t.Fatalf("unclassified error %T: %v", err, err)
			}
		}
		ids := map[string]bool{}
		for _, c := range reply.ToolCalls {
			if ids[c.ID] {
				t.Fatalf("duplicate call id %q in %+v", c.ID, reply.ToolCalls)
			}
			ids[c.ID] = true
		}
		for id, n := range seen {
			if n != 1 {
				t.Fatalf("call %q handed out %d times", id, n)
			}
		}
		if reply.ReasoningDetails != nil && !json.Valid(reply.ReasoningDetails) {
			t.Fatalf("stored blocks are not JSON: %s", reply.ReasoningDetails)
		}
		if _, err := json.Marshal(assistantBlocks(Message{Role: RoleAssistant, Content: reply.Text, ToolCalls: reply.ToolCalls,
			ReasoningField: reply.ReasoningField, ReasoningDetails: reply.ReasoningDetails})); err != nil {
			t.Fatalf("the turn cannot go back: %v", err)
		}
	})
}

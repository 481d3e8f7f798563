package anthropic

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/model/internal/modeltest"
)

// FuzzAnthropicStream serves arbitrary bytes as a Messages API stream to the real client,
// seeded with the recorded streams of testdata/providers. Whatever arrives, Stream must
// not panic or hang, every failure must be one of the typed outcomes a run maps to an exit
// code, and a reply must be coherent: unique call ids, each call handed out once, stored
// blocks that are JSON and go back as blocks.
func FuzzAnthropicStream(f *testing.F) {
	seeds := []string{
		sse(append(append([]string{start(3, 1, 2)}, thinkingBlock(0, "sig", "hm")...), stopWith("end_turn", 2), evStop)...),
		sse(append(toolBlock(0, "dup", "A", `{"x":`, `1}`), toolBlock(1, "dup", "B", `{}`)...)...) + sse(stopWith("tool_use", 1)),
		"data: {\"type\":\"content_block_delta\",\"index\":7,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n",
		"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"odd\",\"n\":1}}\n\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"[\"}}\n\n" + sse(stopWith("pause_turn", 1)),
		"data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n\n",
		`{"type":"message","content":[{"type":"text","text":"x"}],"stop_reason":null}`,
	}
	for _, name := range []string{"anthropic-thinking-tool", "anthropic-redacted-thinking", "anthropic-cache-compaction"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "providers", name+".txtar"))
		if err != nil {
			f.Fatal(err)
		}
		if _, body, ok := strings.Cut(string(raw), "\n\nevent: "); ok {
			f.Add([]byte("event: " + body))
		}
	}
	modeltest.FuzzStream(f, seeds, modeltest.FuzzClient{
		NewModel: func(url string) model.Model {
			return New(model.Config{BaseURL: url, APIKey: "k", Model: "claude-x", IdleTimeout: 5 * time.Second})
		},
		Hung: 20 * time.Second,
		// Stricter than the default, as this test always was: no *EndpointError.
		Typed: func(err error) bool {
			var pe *model.ProviderError
			var fe *model.FinishError
			return errors.As(err, &pe) || errors.As(err, &fe)
		},
		Check: func(t *testing.T, r model.Reply) {
			modeltest.ReasoningIsJSON(t, r) // the blocks kept
			if _, err := json.Marshal(assistantBlocks(model.Message{Role: model.RoleAssistant, Content: r.Text, ToolCalls: r.ToolCalls,
				ReasoningField: r.ReasoningField, ReasoningDetails: r.ReasoningDetails})); err != nil {
				t.Fatalf("the turn cannot go back: %v", err)
			}
		},
	})
}

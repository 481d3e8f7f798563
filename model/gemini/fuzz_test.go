package gemini

import (
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/model/internal/modeltest"
)

// FuzzGemini serves arbitrary bytes as the body of a Gemini stream to the real client.
// Whatever arrives, Stream must not panic or hang; an error must be one a run can judge;
// a reply's calls must have unique ids, each handed out once, with arguments that stay
// valid JSON in events (arguments that are no object reach the tool as they came, and its
// error result tells the model, as for chat completions); and what it keeps to send back
// must be valid JSON.
func FuzzGemini(f *testing.F) {
	seeds := []string{
		`data: {"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"finishReason":"STOP","index":0}]}` + "\r\n\r\n",
		`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"Shell","args":{"command":"ls"},"id":"a"},"thoughtSignature":"c2ln"},{"functionCall":{"name":"Glob","args":null,"id":"a"}}]},"finishReason":"STOP"}]}` + "\n\n",
		`data: {"candidates":[{"content":{"parts":[{"text":"t","thought":true},{"functionCall":{"args":[1]}}]}}]}` + "\n\n",
		`data: {"promptFeedback":{"blockReason":"SAFETY"}}` + "\n\n",
		`data: {"error":{"code":503,"status":"UNAVAILABLE"}}` + "\n\n",
		`[{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"MAX_TOKENS"}]}]`,
		`data: {"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL"}],"usageMetadata":{"promptTokenCount":"7","thoughtsTokenCount":1.5}}` + "\n\n",
		`data: {"candidates":[{"content":{"parts":[{"te`,
	}
	modeltest.FuzzStream(f, seeds, modeltest.FuzzClient{
		NewModel: func(url string) model.Model {
			return New(model.Config{Protocol: "gemini", BaseURL: url + "/v1beta", APIKey: "k", Model: "m", IdleTimeout: 5 * time.Second})
		},
		Check: modeltest.ReasoningIsJSON, // the thought signatures kept
	})
}

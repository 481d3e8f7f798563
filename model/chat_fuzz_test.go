package model_test

import (
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/model/internal/modeltest"
)

// FuzzStream serves arbitrary bytes as an SSE body to the real client. Whatever arrives,
// Stream must not panic or hang; a reply it accepts must be coherent: unique call ids, each
// call handed out once, and arguments in events that stay valid JSON.
func FuzzStream(f *testing.F) {
	seeds := []string{
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"Shell\",\"arguments\":\"{\\\"command\\\":\"}}]}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"ls\\\"}\"}}]}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"a\",\"function\":{\"name\":\"ReadFile\",\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"X\"}},{\"function\":{\"arguments\":\"[1\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
		": keep-alive\n\n\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":3}}\n\n",
		"data: {\"error\":{\"message\":\"overloaded\"}}\n\n",
		"data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"\\u0000\\ud800\"},\"finish_reason\":\"stop\"}]}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"cont",
	}
	modeltest.FuzzStream(f, seeds, modeltest.FuzzClient{NewModel: func(url string) model.Model {
		return model.NewOpenAI(model.Config{BaseURL: url + "/v1", APIKey: "k", Model: "m", IdleTimeout: 5 * time.Second})
	}})
}

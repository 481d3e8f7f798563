package responses

import (
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/model/internal/modeltest"
)

// FuzzResponsesStream is FuzzStream for the Responses API client: whatever the body, Stream
// must not panic or hang, must classify its failures, and a reply it accepts must hand out
// each call once under an id unique in the reply, with reasoning details that are JSON.
func FuzzResponsesStream(f *testing.F) {
	seeds := []string{
		`data: {"type":"response.output_text.delta","output_index":0,"delta":"hi"}` + "\n\n" +
			`data: {"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":3,"output_tokens":1}}}` + "\n\n",
		`data: {"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","call_id":"a","name":"Shell","arguments":""}}` + "\n\n" +
			`data: {"type":"response.function_call_arguments.delta","output_index":1,"delta":"{\"command\":"}` + "\n\n" +
			`data: {"type":"response.output_item.done","output_index":1,"item":{"type":"function_call","call_id":"a","name":"Shell","arguments":"{\"command\":\"ls\"}"}}` + "\n\n" +
			`data: {"type":"response.output_item.done","output_index":2,"item":{"type":"function_call","call_id":"a","name":"X","arguments":"[1"}}` + "\n\n" +
			`data: {"type":"response.completed","response":{"status":"completed","output":[{"type":"reasoning","summary":[{"text":"t"}],"encrypted_content":"E"}]}}` + "\n\n",
		`data: {"type":"response.incomplete","response":{"incomplete_details":{"reason":"content_filter"}}}` + "\n\n",
		`data: {"type":"response.failed","response":{"error":{"code":"server_error","message":"x"}}}` + "\n\n",
		`data: {"type":"error","code":"invalid_api_key","message":"no"}` + "\n\n",
		`{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"whole"}]}]}`,
		`data: {"type":"response.output_text.delta","delta":{"x":1}}` + "\n\n",
		`data: {"type":"response.output_item.done","output_index":0,"item":"`,
	}
	modeltest.FuzzStream(f, seeds, modeltest.FuzzClient{
		NewModel: func(url string) model.Model {
			return New(model.Config{BaseURL: url + "/v1", APIKey: "k", Model: "m", IdleTimeout: 5 * time.Second})
		},
		Check: func(t *testing.T, r model.Reply) {
			for _, c := range r.ToolCalls {
				if c.ID == "" {
					t.Fatalf("call without an id in %+v", r.ToolCalls)
				}
			}
			modeltest.ReasoningIsJSON(t, r)
		},
	})
}

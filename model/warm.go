package model

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"
)

// Warm has encoding/json build, ahead of the first request, the encoders of the
// chat-completions request body (go-openai's request, message, tool call and tool types),
// which it otherwise builds by reflection while the first request waits (issue 31). The
// encoders are cached for the process; the body encoded here is thrown away. Safe from
// any goroutine, at any time.
func Warm() {
	_, _ = json.Marshal(openai.ChatCompletionRequest{
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
		Messages: []openai.ChatCompletionMessage{
			{Role: RoleSystem, Content: "s"},
			{Role: RoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "n", Arguments: "{}"}}}},
			{Role: RoleTool, ToolCallID: "c", Content: "r"},
		},
		Tools: []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "n", Parameters: json.RawMessage(`{}`)}}},
	})
}

package gemini

import (
	"encoding/json"

	"github.com/kimi-run/kimi-run/model"
)

// The wire shapes of Gemini's generateContent API (Google AI's generativelanguage and
// Vertex AI's aiplatform speak the same JSON): a request of contents made of parts, and a
// stream of GenerateContentResponse objects, one per SSE data line (alt=sse).

// geminiRequest is the body of a streamGenerateContent call.
type geminiRequest struct {
	Contents          []geminiContent   `json:"contents"`
	SystemInstruction *geminiContent    `json:"systemInstruction,omitempty"`
	Tools             []geminiTool      `json:"tools,omitempty"`
	GenerationConfig  *geminiGeneration `json:"generationConfig,omitempty"`
}

// geminiContent is one turn: role "user" or "model", and its parts.
type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

// geminiPart is one part of a turn: text (a thought when Thought is set), a function call,
// a function response or inline data. ThoughtSignature is the opaque signature Gemini's
// thinking models attach to a part, which must go back on the same part.
type geminiPart struct {
	Text             *string             `json:"text,omitempty"`
	Thought          bool                `json:"thought,omitempty"`
	ThoughtSignature string              `json:"thoughtSignature,omitempty"`
	FunctionCall     *geminiFunctionCall `json:"functionCall,omitempty"`
	FunctionResponse *geminiFuncResponse `json:"functionResponse,omitempty"`
	InlineData       *geminiBlob         `json:"inlineData,omitempty"`
}

type geminiFunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type geminiFuncResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type geminiBlob struct {
	MIMEType string `json:"mimeType"`
	Data     []byte `json:"data"` // Base64 on the wire, as encoding/json writes []byte
}

type geminiTool struct {
	FunctionDeclarations []geminiFunctionDecl `json:"functionDeclarations"`
}

// geminiFunctionDecl declares a tool. Its schema goes in parametersJsonSchema, which takes
// JSON Schema as it is (additionalProperties, anyOf, $ref: what MCP servers send), not in
// parameters, which takes only Google's OpenAPI subset.
type geminiFunctionDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

type geminiGeneration struct {
	MaxOutputTokens int             `json:"maxOutputTokens,omitempty"`
	ThinkingConfig  *geminiThinking `json:"thinkingConfig,omitempty"`
}

type geminiThinking struct {
	IncludeThoughts *bool  `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

// geminiChunk is one streamed GenerateContentResponse. Error is set when the stream
// carries an error object instead ({"error":{"code":503,...}}).
type geminiChunk struct {
	Candidates     []geminiCandidate     `json:"candidates"`
	PromptFeedback *geminiPromptFeedback `json:"promptFeedback"`
	UsageMetadata  *geminiUsage          `json:"usageMetadata"`
	Error          json.RawMessage       `json:"error"`
}

type geminiCandidate struct {
	Content       *geminiContent `json:"content"`
	FinishReason  string         `json:"finishReason"`
	FinishMessage string         `json:"finishMessage"`
	Index         int            `json:"index"`
}

// geminiPromptFeedback says why a prompt was refused before any candidate was made.
type geminiPromptFeedback struct {
	BlockReason        string `json:"blockReason"`
	BlockReasonMessage string `json:"blockReasonMessage"`
}

// geminiUsage is usageMetadata. candidatesTokenCount leaves the thinking out:
// thoughtsTokenCount is counted (and billed) beside it, and totalTokenCount is the sum of
// prompt, candidates, thoughts and tool-use prompt tokens. cachedContentTokenCount is part
// of promptTokenCount.
type geminiUsage struct {
	PromptTokenCount        model.LenientInt `json:"promptTokenCount"`
	CandidatesTokenCount    model.LenientInt `json:"candidatesTokenCount"`
	CachedContentTokenCount model.LenientInt `json:"cachedContentTokenCount"`
	ThoughtsTokenCount      model.LenientInt `json:"thoughtsTokenCount"`
	ToolUsePromptTokenCount model.LenientInt `json:"toolUsePromptTokenCount"`
}

// tokens maps usageMetadata onto TokenUsage: input is the prompt with the tool-use prompt,
// output is the answer with the thinking (what Google bills as output), and reasoning is
// the thinking alone.
func (u *geminiUsage) tokens() model.TokenUsage {
	return model.TokenUsage{
		InputTokens:     int(u.PromptTokenCount + u.ToolUsePromptTokenCount),
		OutputTokens:    int(u.CandidatesTokenCount + u.ThoughtsTokenCount),
		CachedTokens:    int(u.CachedContentTokenCount),
		ReasoningTokens: int(u.ThoughtsTokenCount),
	}
}

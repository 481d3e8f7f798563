package event

import (
	"encoding/json"
	"slices"
)

// The event types of schema version 1. Each has its payload struct below, whose Type
// method returns it, and its line in the registry.
const (
	TypeInit            Type = "init"
	TypeTurnBegin       Type = "turn_begin"
	TypeTurnEnd         Type = "turn_end"
	TypeStepBegin       Type = "step_begin"
	TypeText            Type = "text"
	TypeThinking        Type = "thinking"
	TypeToolCall        Type = "tool_call"
	TypeToolResult      Type = "tool_result"
	TypeRetry           Type = "retry"
	TypeUsage           Type = "usage"
	TypeCompactionBegin Type = "compaction_begin"
	TypeCompactionEnd   Type = "compaction_end"
	TypeIteration       Type = "iteration"
	TypeTodo            Type = "todo"
	TypeWarning         Type = "warning"
	TypeAnswer          Type = "answer"
	TypeHook            Type = "hook"
	TypeToolDenied      Type = "tool_denied"
	TypeResult          Type = "result"
)

// registry lists every event type by one zero payload of it, in the order docs/events.md
// lists them. The schema, the docs and the renderers are tested against it.
var registry = []Payload{
	Init{},
	TurnBegin{},
	TurnEnd{},
	StepBegin{},
	Text{},
	Thinking{},
	ToolCall{},
	ToolResult{},
	Retry{},
	Usage{},
	CompactionBegin{},
	CompactionEnd{},
	Iteration{},
	Todo{},
	Warning{},
	Answer{},
	Hook{},
	ToolDenied{},
	Result{},
}

// Registry returns one zero payload of every event type, in the order docs/events.md lists
// them.
func Registry() []Payload { return slices.Clone(registry) }

// Init opens every stream.
type Init struct {
	SchemaVersion int      `json:"schema_version"`
	SessionID     string   `json:"session_id"`
	Model         string   `json:"model"`
	BaseURLHost   string   `json:"base_url_host"`
	WorkDir       string   `json:"work_dir"`
	Tools         []string `json:"tools"`
	Version       string   `json:"version,omitempty"`
	// MCPServers lists the configured MCP servers, started or not; absent when there are none.
	MCPServers []MCPServer `json:"mcp_servers,omitempty"`
}

// Type is "init".
func (Init) Type() Type { return TypeInit }

// MCPServer is one MCP server in the init event.
type MCPServer struct {
	Name      string `json:"name"`
	Transport string `json:"transport"` // stdio, http or sse
	// Status is "connected", or "failed" with Error saying why.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Tools are the names the model sees for the server's tools (also in Init.Tools).
	Tools []string `json:"tools"`
}

// TurnBegin starts one agent turn: one prompt, or one flow node.
type TurnBegin struct {
	Turn      int    `json:"turn"`
	Iteration int    `json:"iteration,omitempty"`
	Node      string `json:"node,omitempty"`
}

// Type is "turn_begin".
func (TurnBegin) Type() Type { return TypeTurnBegin }

// TurnEnd ends a turn. StopReason says why the turn ended (completed, max_steps, repeat, error).
type TurnEnd struct {
	Turn       int    `json:"turn"`
	Iteration  int    `json:"iteration,omitempty"`
	Node       string `json:"node,omitempty"`
	Steps      int    `json:"steps"`
	StopReason string `json:"stop_reason"`
}

// Type is "turn_end".
func (TurnEnd) Type() Type { return TypeTurnEnd }

// StepBegin marks one model call within a turn.
type StepBegin struct {
	Turn int `json:"turn"`
	Step int `json:"step"`
}

// Type is "step_begin".
func (StepBegin) Type() Type { return TypeStepBegin }

// Text is a piece of assistant text as it streams. After a retry event for the same step,
// the step's text starts again from the beginning.
type Text struct {
	Step  int    `json:"step"`
	Delta string `json:"delta"`
}

// Type is "text".
func (Text) Type() Type { return TypeText }

// Thinking is a piece of reasoning_content as it streams.
type Thinking struct {
	Step  int    `json:"step"`
	Delta string `json:"delta"`
}

// Type is "thinking".
func (Thinking) Type() Type { return TypeThinking }

// ToolCall is a complete tool call, emitted before it runs. Arguments is the JSON object the
// model sent; when the model sent something that is not a JSON object it is kept as a string.
type ToolCall struct {
	Step      int             `json:"step"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Type is "tool_call".
func (ToolCall) Type() Type { return TypeToolCall }

// ToolResult is a finished tool call, with its output as it was sent to the model.
type ToolResult struct {
	Step       int    `json:"step"`
	ID         string `json:"id"`
	Name       string `json:"name"`
	IsError    bool   `json:"is_error"`
	Output     string `json:"output"`
	DurationMS int64  `json:"duration_ms"`
	// Kimi is the result in Kimi CLI's wording, for Kimi's message lines only; it is not
	// part of kimi-run's events.
	Kimi *KimiToolText `json:"-"`
}

// Type is "tool_result".
func (ToolResult) Type() Type { return TypeToolResult }

// KimiToolText is a tool result as Kimi CLI words it: its message and its output.
type KimiToolText struct {
	Message string
	Output  string
}

// Retry is emitted before each backoff wait.
type Retry struct {
	Step        int    `json:"step"`
	Attempt     int    `json:"attempt"`
	MaxAttempts int    `json:"max_attempts"`
	DelayMS     int64  `json:"delay_ms"`
	Error       string `json:"error"`
	HTTPStatus  int    `json:"http_status,omitempty"`
}

// Type is "retry".
func (Retry) Type() Type { return TypeRetry }

// Usage reports token usage after each model call.
type Usage struct {
	Step         int `json:"step"`
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	CachedTokens int `json:"cached_tokens"`
	// ReasoningTokens is the part of OutputTokens spent thinking, when the provider
	// reports it (completion_tokens_details.reasoning_tokens).
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	ContextTokens   int `json:"context_tokens"`
}

// Type is "usage".
func (Usage) Type() Type { return TypeUsage }

// CompactionBegin and CompactionEnd surround a context compaction.
type CompactionBegin struct {
	TokensBefore int `json:"tokens_before"`
}

// Type is "compaction_begin".
func (CompactionBegin) Type() Type { return TypeCompactionBegin }

// CompactionEnd reports the context size after compaction.
type CompactionEnd struct {
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
	Fallback     bool   `json:"fallback,omitempty"`
	Error        string `json:"error,omitempty"`
}

// Type is "compaction_end".
func (CompactionEnd) Type() Type { return TypeCompactionEnd }

// Iteration marks a Ralph iteration or flow node transition.
type Iteration struct {
	Iteration int    `json:"iteration"`
	Max       int    `json:"max,omitempty"`
	Node      string `json:"node"`
	Choice    string `json:"choice,omitempty"`
}

// Type is "iteration".
func (Iteration) Type() Type { return TypeIteration }

// Todo is emitted on every SetTodoList update.
type Todo struct {
	Items []TodoItem `json:"todos"`
}

// Type is "todo".
func (Todo) Type() Type { return TypeTodo }

// TodoItem is one entry of the agent's plan.
type TodoItem struct {
	Title  string `json:"title"`
	Status string `json:"status"`
}

// Warning reports something the run recovered from (a torn session line, a malformed reply).
type Warning struct {
	Message string `json:"message"`
}

// Type is "warning".
func (Warning) Type() Type { return TypeWarning }

// Answer is the final answer to one message of a conversation read with --input-format
// stream-json, emitted when that message's turn (or Ralph loop) ended well, before the next
// message is read.
type Answer struct {
	// Message counts the messages answered, from 1; a prompt given with -p is the first.
	Message int `json:"message"`
	// Line is the message's line on stdin; absent for the -p prompt.
	Line      int    `json:"line,omitempty"`
	FinalText string `json:"final_text"`
}

// Type is "answer".
func (Answer) Type() Type { return TypeAnswer }

// Hook reports one run of a user's hook command (config.toml [[hooks]]).
type Hook struct {
	// Event is the hook event that ran it, e.g. PreToolUse.
	Event string `json:"event"`
	// Target is what the matcher was tested against: the tool name, the stop's error
	// type, the session's source, ...
	Target string `json:"target,omitempty"`
	// ToolCallID is the tool call a tool hook ran for.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Command is the hook's command, shortened to one line.
	Command string `json:"command"`
	// ExitCode is the command's exit status; -1 when it was killed or did not start.
	ExitCode   int   `json:"exit_code"`
	DurationMS int64 `json:"duration_ms"`
	// Blocked says the hook blocked the action (exit 2, or permissionDecision deny).
	Blocked bool `json:"blocked"`
	// Reason is what a blocking hook said (it goes back to the model).
	Reason string `json:"reason,omitempty"`
	// TimedOut says the hook was killed at its timeout.
	TimedOut bool `json:"timed_out,omitempty"`
}

// Type is "hook".
func (Hook) Type() Type { return TypeHook }

// ToolDenied reports a tool call that the tool rules (--allowed-tools, --disallowed-tools)
// or the sandbox refused; the model received an error result for it.
type ToolDenied struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Rule is the rule that refused the call: "Shell(rm *)", or "sandbox"; empty when no
	// allow rule matched.
	Rule    string `json:"rule,omitempty"`
	Message string `json:"message"`
}

// Type is "tool_denied".
func (ToolDenied) Type() Type { return TypeToolDenied }

// Result is always the last event of a run.
type Result struct {
	Status         string `json:"status"`
	TerminalReason string `json:"terminal_reason"`
	ExitCode       int    `json:"exit_code"`
	FinalText      string `json:"final_text"`
	// StructuredOutput is the final answer as compact JSON when --json-schema accepted it.
	StructuredOutput json.RawMessage `json:"structured_output,omitempty"`
	Error            *ErrorInfo      `json:"error,omitempty"`
	Steps            int             `json:"steps"`
	ToolCalls        int             `json:"tool_calls"`
	// ToolDenials counts the tool calls refused by the tool rules or the sandbox.
	ToolDenials int         `json:"tool_denials,omitempty"`
	Iterations  int         `json:"iterations"`
	LastChoice  string      `json:"last_choice,omitempty"`
	Usage       UsageTotals `json:"usage"`
	DurationMS  int64       `json:"duration_ms"`
	SessionID   string      `json:"session_id"`
	// SessionWarning says why the session on disk lacks part of this run (a full disk), or
	// why --continue will not find it; absent when the session holds the whole run.
	SessionWarning string `json:"session_warning,omitempty"`
}

// Type is "result".
func (Result) Type() Type { return TypeResult }

// ErrorInfo describes why a run failed.
type ErrorInfo struct {
	Kind       string `json:"kind"`
	Message    string `json:"message"`
	HTTPStatus int    `json:"http_status,omitempty"`
	Retryable  bool   `json:"retryable"`
}

// UsageTotals sums token usage over a run.
type UsageTotals struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	CachedTokens int `json:"cached_tokens"`
	// ReasoningTokens is the part of OutputTokens spent thinking, as providers report it.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// CostUSD is the usage priced in US dollars; absent when the model's prices are unknown.
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

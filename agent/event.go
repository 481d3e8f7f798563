package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// SchemaVersion is the version of the NDJSON event schema (docs/events.md).
const SchemaVersion = 1

// Type names an event in the NDJSON stream.
type Type string

// The event types of schema version 1.
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
	TypeCompactionBegin Type = "compaction_begin"
	TypeCompactionEnd   Type = "compaction_end"
	TypeIteration       Type = "iteration"
	TypeUsage           Type = "usage"
	TypeTodo            Type = "todo"
	TypeWarning         Type = "warning"
	TypeResult          Type = "result"
)

// Event is the one thing that flows from the agent (and the flow runner) to an output sink.
// Data holds the payload for Type; its fields are written flat beside "type" and "ts".
type Event struct {
	Type Type
	Time time.Time
	// Parent is the id of the Task tool call whose subagent produced this event; empty for
	// the main agent.
	Parent string
	Data   any
}

// Sink receives events. Emit must be safe for concurrent use: tool calls run in parallel.
type Sink interface {
	Emit(Event)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(Event)

// Emit calls f(e).
func (f SinkFunc) Emit(e Event) { f(e) }

// Discard is a Sink that drops every event.
var Discard Sink = SinkFunc(func(Event) {})

// MarshalJSON writes {"type":…,"ts":…,"parent_tool_call_id":…, <payload fields>}.
func (e Event) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	t, _ := json.Marshal(string(e.Type))
	b.Write(t)
	b.WriteString(`,"ts":"`)
	b.WriteString(e.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	b.WriteByte('"')
	if e.Parent != "" {
		b.WriteString(`,"parent_tool_call_id":`)
		p, _ := json.Marshal(e.Parent)
		b.Write(p)
	}
	if e.Data != nil {
		d, err := marshalNoEscape(e.Data)
		if err != nil {
			return nil, fmt.Errorf("marshal %s event: %w", e.Type, err)
		}
		if len(d) < 2 || d[0] != '{' {
			return nil, fmt.Errorf("marshal %s event: payload is not an object", e.Type)
		}
		if len(d) > 2 {
			b.WriteByte(',')
			b.Write(d[1 : len(d)-1])
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshalNoEscape is json.Marshal without HTML escaping: final texts quote <choice> tags
// and code, which should stay readable in the stream.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Init opens every stream.
type Init struct {
	SchemaVersion int      `json:"schema_version"`
	SessionID     string   `json:"session_id"`
	Model         string   `json:"model"`
	BaseURLHost   string   `json:"base_url_host"`
	WorkDir       string   `json:"work_dir"`
	Tools         []string `json:"tools"`
	Version       string   `json:"version,omitempty"`
}

// TurnBegin starts one agent turn: one prompt, or one flow node.
type TurnBegin struct {
	Turn      int    `json:"turn"`
	Iteration int    `json:"iteration,omitempty"`
	Node      string `json:"node,omitempty"`
}

// TurnEnd ends a turn. StopReason says why the turn ended (completed, max_steps, repeat, error).
type TurnEnd struct {
	Turn       int    `json:"turn"`
	Iteration  int    `json:"iteration,omitempty"`
	Node       string `json:"node,omitempty"`
	Steps      int    `json:"steps"`
	StopReason string `json:"stop_reason"`
}

// StepBegin marks one model call within a turn.
type StepBegin struct {
	Turn int `json:"turn"`
	Step int `json:"step"`
}

// Text is a piece of assistant text as it streams. After a retry event for the same step,
// the step's text starts again from the beginning.
type Text struct {
	Step  int    `json:"step"`
	Delta string `json:"delta"`
}

// Thinking is a piece of reasoning_content as it streams.
type Thinking struct {
	Step  int    `json:"step"`
	Delta string `json:"delta"`
}

// ToolCall is a complete tool call, emitted before it runs. Arguments is the JSON object the
// model sent; when the model sent something that is not a JSON object it is kept as a string.
type ToolCall struct {
	Step      int             `json:"step"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolResult is a finished tool call, with its output as it was sent to the model.
type ToolResult struct {
	Step       int    `json:"step"`
	ID         string `json:"id"`
	Name       string `json:"name"`
	IsError    bool   `json:"is_error"`
	Output     string `json:"output"`
	DurationMS int64  `json:"duration_ms"`
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

// Usage reports token usage after each model call.
type Usage struct {
	Step          int `json:"step"`
	InputTokens   int `json:"input_tokens"`
	OutputTokens  int `json:"output_tokens"`
	CachedTokens  int `json:"cached_tokens"`
	ContextTokens int `json:"context_tokens"`
}

// CompactionBegin and CompactionEnd surround a context compaction.
type CompactionBegin struct {
	TokensBefore int `json:"tokens_before"`
}

// CompactionEnd reports the context size after compaction.
type CompactionEnd struct {
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
	Fallback     bool   `json:"fallback,omitempty"`
	Error        string `json:"error,omitempty"`
}

// Iteration marks a Ralph iteration or flow node transition.
type Iteration struct {
	Iteration int    `json:"iteration"`
	Max       int    `json:"max,omitempty"`
	Node      string `json:"node"`
	Choice    string `json:"choice,omitempty"`
}

// Todo is emitted on every SetTodoList update.
type Todo struct {
	Items []TodoItem `json:"todos"`
}

// TodoItem is one entry of the agent's plan.
type TodoItem struct {
	Title  string `json:"title"`
	Status string `json:"status"`
}

// Warning reports something the run recovered from (a torn session line, a malformed reply).
type Warning struct {
	Message string `json:"message"`
}

// Result is always the last event of a run.
type Result struct {
	Status         string      `json:"status"`
	TerminalReason string      `json:"terminal_reason"`
	ExitCode       int         `json:"exit_code"`
	FinalText      string      `json:"final_text"`
	Error          *ErrorInfo  `json:"error,omitempty"`
	Steps          int         `json:"steps"`
	ToolCalls      int         `json:"tool_calls"`
	Iterations     int         `json:"iterations"`
	LastChoice     string      `json:"last_choice,omitempty"`
	Usage          UsageTotals `json:"usage"`
	DurationMS     int64       `json:"duration_ms"`
	SessionID      string      `json:"session_id"`
}

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
}

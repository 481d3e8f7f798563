package event

// The payloads of a tool call: its start, its progress, its refusal and its result. How
// payloads become the schema and the docs: see payload.go.

import "encoding/json"

// ToolCall announces a tool call that has fully streamed and is about to run.
type ToolCall struct {
	// The model call that asked for it.
	Step int `json:"step" minimum:"1"`
	// The tool call's id, as the model gave it.
	ID string `json:"id" minLength:"1"`
	// The tool's name.
	Name string `json:"name"`
	// The JSON object the model sent; the raw text as a JSON string when it sent something
	// that is not a JSON object.
	Arguments json.RawMessage `json:"arguments" types:"object,string"`
}

// Type is "tool_call".
func (ToolCall) Type() Type { return TypeToolCall }

// ToolResult reports a finished tool call, with its output as it was sent to the model.
type ToolResult struct {
	// The model call that asked for it.
	Step int `json:"step" minimum:"1"`
	// The tool call's id, as in its `tool_call`.
	ID string `json:"id" minLength:"1"`
	// The tool's name.
	Name string `json:"name"`
	// Whether the tool failed (the model was told so).
	IsError bool `json:"is_error"`
	// The text sent to the model: capped at 50,000 characters and 2,000 per line, `ERROR: ` in
	// front of a failure, the loop guard's `<system>` note behind a repeated call; the API
	// key is replaced by `[redacted]` here, as in every event, while the model saw the output
	// unchanged.
	Output string `json:"output"`
	// How long the call ran, in milliseconds.
	DurationMS int64 `json:"duration_ms" minimum:"0" volatile:"true"`
	// Kimi is the result in Kimi CLI's wording, for Kimi's message lines only; it is not
	// part of kimi-run's events.
	Kimi *KimiToolText `json:"-"`
}

// Type is "tool_result".
func (ToolResult) Type() Type { return TypeToolResult }

// ToolProgress reports a tool call that is still running, every `--heartbeat` (15 s by
// default) after it started, until its `tool_result`: a sign of life for a CI system that
// ends jobs silent for minutes, and a way to tell a slow command from a stuck one.
type ToolProgress struct {
	// The model call that asked for it.
	Step int `json:"step" minimum:"1"`
	// The tool call's id, as in its `tool_call`.
	ID string `json:"id" minLength:"1"`
	// The tool's name.
	Name string `json:"name"`
	// How long the call has been running, in milliseconds.
	ElapsedMS int64 `json:"elapsed_ms" minimum:"0"`
	// The bytes of output the call has produced so far: what a Shell command has written
	// to stdout and stderr. Tools that answer only when they end report 0.
	OutputBytes int64 `json:"output_bytes" minimum:"0"`
	// Milliseconds since the call last produced output, or since it started when it has
	// produced none.
	SinceOutputMS int64 `json:"since_output_ms" minimum:"0"`
}

// Type is "tool_progress".
func (ToolProgress) Type() Type { return TypeToolProgress }

// KimiToolText is a tool result as Kimi CLI words it: its message and its output.
type KimiToolText struct {
	Message string
	Output  string
}

// ToolDenied reports a tool call that was refused: by `--allowed-tools`/`--disallowed-tools`,
// by the sandbox (its check of a file write or FetchURL, or a write a sandboxed command was
// refused), by kimi-run's guard of files that hold secrets, or by a PreToolUse hook. It comes
// before the call's `tool_result` (an error), which carries the same message.
type ToolDenied struct {
	// The tool call's id.
	ID string `json:"id" minLength:"1"`
	// The tool's name.
	Name string `json:"name" minLength:"1"`
	// What refused it: `rules` (the tool rules), `sandbox`, `guard` (a file that holds
	// secrets) or `hook` (a PreToolUse hook).
	Source string `json:"source" enum:"rules,sandbox,guard,hook"`
	// The rule that refused the call: `Shell(rm *)`, a tool name, `sandbox`, `secret file`,
	// or `PreToolUse hook: ` and the hook's command; absent when no allow rule matched.
	Rule string `json:"rule,omitempty" minLength:"1"`
	// Why it was refused, as the model was told. A sandboxed command ran and was refused
	// part of what it did: then it names what the sandbox refused.
	Message string `json:"message"`
}

// Type is "tool_denied".
func (ToolDenied) Type() Type { return TypeToolDenied }

package event

import "encoding/json"

// The event types of schema version 1. Each has its payload struct below, whose Type
// method returns it, and its line in the registry.
const (
	TypeInit            Type = "init"
	TypeSessionRewind   Type = "session_rewind"
	TypeTurnBegin       Type = "turn_begin"
	TypeTurnEnd         Type = "turn_end"
	TypeStepBegin       Type = "step_begin"
	TypeText            Type = "text"
	TypeThinking        Type = "thinking"
	TypeToolCall        Type = "tool_call"
	TypeToolResult      Type = "tool_result"
	TypeToolProgress    Type = "tool_progress"
	TypeRetry           Type = "retry"
	TypeModelFallback   Type = "model_fallback"
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
// lists them, with the renderers that leave it out on purpose (every other renderer has a
// case for it). The schema and the docs' tables are generated from it (internal/eventschema),
// and each renderer is tested against it, so a new type is decided on here, in one place.
var registry = []registered{
	{Init{}, KimiLines},
	{SessionRewind{}, KimiLines | Telemetry},
	{TurnBegin{}, 0},
	{TurnEnd{}, 0},
	{StepBegin{}, 0},
	{Text{}, Telemetry},
	{Thinking{}, Telemetry},
	{ToolCall{}, 0},
	{ToolResult{}, 0},
	{ToolProgress{}, KimiLines | Telemetry},
	{Retry{}, 0},
	{ModelFallback{}, Progress | KimiLines | Telemetry},
	{Usage{}, 0},
	{CompactionBegin{}, KimiLines},
	{CompactionEnd{}, KimiLines | Telemetry},
	{Iteration{}, KimiLines},
	{Todo{}, KimiLines | Telemetry},
	{Warning{}, Telemetry},
	{Answer{}, Telemetry},
	{Hook{}, Telemetry},
	{ToolDenied{}, KimiLines},
	{TaskStarted{}, KimiLines | Telemetry},
	{TaskOutput{}, KimiLines | Telemetry},
	{TaskEnded{}, Telemetry},
	{Result{}, 0},
}

// Registry returns one zero payload of every event type, in the order docs/events.md lists
// them.
func Registry() []Payload {
	out := make([]Payload, len(registry))
	for i, r := range registry {
		out[i] = r.payload
	}
	return out
}

// The payloads below are the contract of docs/events.md and docs/events.schema.json, both
// generated from this package (go test ./internal/eventschema -run TestGenerated -update).
// A payload's doc comment, after its Go name, says when the event is written (its first
// paragraph is the summary); each field's doc comment is its description, written for a
// reader of the stream (JSON names, not Go names). The json tag gives the name, and
// omitempty an optional field; the tags enum, minimum, maximum, minLength, pattern and
// types (a union, as anyOf) add JSON Schema keywords, to a slice's items when on a slice.

// Init opens every stream: the first line, before any model call.
type Init struct {
	// Always 1 in this version of the schema.
	SchemaVersion int `json:"schema_version" enum:"1"`
	// The run's session id; empty with --no-session.
	SessionID string `json:"session_id"`
	// The model's name as sent to the provider.
	Model string `json:"model"`
	// The provider's type, as Kimi CLI's config.toml names it, which says the wire protocol
	// the run speaks: `kimi` and `openai_legacy` (chat completions), `openai_responses`
	// (OpenAI's Responses API), `anthropic` (the Messages API), `gemini` and `google_genai`
	// (the Gemini API), `vertexai`.
	Provider string `json:"provider,omitempty"`
	// The endpoint's host[:port] only: never a path, a query or credentials.
	BaseURLHost string `json:"base_url_host" pattern:"^[^/?#@]*$"`
	// The directory the tools work in.
	WorkDir string `json:"work_dir" minLength:"1"`
	// The names of the tools the model is offered, MCP tools included.
	Tools []string `json:"tools" minLength:"1"`
	// kimi-run's version.
	Version string `json:"version,omitempty" minLength:"1"`
	// The configured MCP servers, sorted by name, whether they started or not; absent when
	// there are none. MCP servers start before `init`, so their state is known.
	MCPServers []MCPServer `json:"mcp_servers,omitempty"`
	// The session this run's session was copied from (`--fork-session`); absent otherwise.
	ForkedFrom string `json:"forked_from,omitempty" minLength:"1"`
}

// Type is "init".
func (Init) Type() Type { return TypeInit }

// SessionRewind reports that `--rewind` took the session back to one of its checkpoints
// before the run began: written right after `init`. What came after the checkpoint is
// kept in `backup`; with `--rewind-files`, `files` says what became of each file the file
// tools had changed since.
type SessionRewind struct {
	// The checkpoint the session went back to (`--show-session` lists them).
	Checkpoint int `json:"checkpoint" minimum:"0"`
	// The file that keeps the conversation as it was before the rewind, in the session's folder.
	Backup string `json:"backup" minLength:"1"`
	// Each file WriteFile or StrReplaceFile changed since the checkpoint, in the order of their first change; absent without `--rewind-files`.
	Files []RewoundFile `json:"files,omitempty"`
}

// Type is "session_rewind".
func (SessionRewind) Type() Type { return TypeSessionRewind }

// RewoundFile is what a rewind did to one file.
type RewoundFile struct {
	// The file's absolute path.
	Path string `json:"path" minLength:"1"`
	// `restored` (its content at the checkpoint is back), `deleted` (it did not exist then), `unchanged` (it held that content already) or `not_restored` (`reason` says why).
	Action string `json:"action" enum:"restored,deleted,unchanged,not_restored"`
	// Why the file was not restored.
	Reason string `json:"reason,omitempty" minLength:"1"`
	// Where the content it held before the rewind is kept (a file in the session's folder); absent when it did not exist or was not replaced.
	Backup string `json:"backup,omitempty" minLength:"1"`
	// Whether something other than the file tools (a command, a person) had changed the file since they last wrote it; that change is undone too, and kept in `backup`.
	ChangedOutside bool `json:"changed_outside,omitempty"`
}

// MCPServer is one MCP server in the init event.
type MCPServer struct {
	// The server's name in the config.
	Name string `json:"name" minLength:"1"`
	// `stdio`, `http` (streamable HTTP) or `sse`.
	Transport string `json:"transport" enum:"stdio,http,sse"`
	// `connected`, or `failed` with `error` saying why.
	Status string `json:"status" enum:"connected,failed"`
	// Why a failed server is not available, with the last lines of its stderr.
	Error string `json:"error,omitempty"`
	// The names the model sees for the server's tools (also in `tools`); empty when it failed.
	Tools []string `json:"tools" minLength:"1"`
}

// TurnBegin starts an agent turn: one prompt, or one flow node.
type TurnBegin struct {
	// The turn's number in the run, from 1.
	Turn int `json:"turn" minimum:"1"`
	// The Ralph iteration or flow step the turn belongs to; absent outside a flow.
	Iteration int `json:"iteration,omitempty" minimum:"1"`
	// The flow node the turn runs; absent outside a flow.
	Node string `json:"node,omitempty" minLength:"1"`
}

// Type is "turn_begin".
func (TurnBegin) Type() Type { return TypeTurnBegin }

// TurnEnd ends the turn.
type TurnEnd struct {
	// The turn's number in the run, as in its `turn_begin`.
	Turn int `json:"turn" minimum:"1"`
	// The Ralph iteration or flow step the turn belongs to; absent outside a flow.
	Iteration int `json:"iteration,omitempty" minimum:"1"`
	// The flow node the turn ran; absent outside a flow.
	Node string `json:"node,omitempty" minLength:"1"`
	// The model calls the turn made.
	Steps int `json:"steps" minimum:"0"`
	// Why the turn ended: it was answered, its step budget ran out, the loop guard stopped a
	// repeating model, the answer stayed cut at the token limit, or an error.
	StopReason string `json:"stop_reason" enum:"completed,max_steps,repeat,truncated,error"`
}

// Type is "turn_end".
func (TurnEnd) Type() Type { return TypeTurnEnd }

// StepBegin starts a model call.
type StepBegin struct {
	// The turn the call belongs to.
	Turn int `json:"turn" minimum:"1"`
	// The model call's number within its turn, from 1.
	Step int `json:"step" minimum:"1"`
}

// Type is "step_begin".
func (StepBegin) Type() Type { return TypeStepBegin }

// Text carries assistant text as it streams.
//
// After a `retry` event for the same step, the step's text starts again from the beginning.
type Text struct {
	// The model call the text belongs to.
	Step int `json:"step" minimum:"1"`
	// The next piece of text.
	Delta string `json:"delta"`
}

// Type is "text".
func (Text) Type() Type { return TypeText }

// Thinking carries the model's reasoning as it streams, whichever field the provider uses
// (`reasoning_content`, OpenRouter's `reasoning` or the text of its `reasoning_details`;
// one chunk's thought is shown once).
type Thinking struct {
	// The model call the reasoning belongs to.
	Step int `json:"step" minimum:"1"`
	// The next piece of reasoning.
	Delta string `json:"delta"`
}

// Type is "thinking".
func (Thinking) Type() Type { return TypeThinking }

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
	DurationMS int64 `json:"duration_ms" minimum:"0"`
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

// Retry reports a model call that failed transiently; it is written before the backoff
// wait.
type Retry struct {
	// The step whose model call failed; 0 for a compaction's summary.
	Step int `json:"step" minimum:"0"`
	// The attempt that failed, from 1.
	Attempt int `json:"attempt" minimum:"1"`
	// All attempts, the first included: `--max-retries` + 1.
	MaxAttempts int `json:"max_attempts" minimum:"1"`
	// The wait before the next attempt, in milliseconds.
	DelayMS int64 `json:"delay_ms" minimum:"0"`
	// What went wrong, in one line.
	Error string `json:"error"`
	// The HTTP status of the failed attempt; absent when it got none (a network error, a cut
	// stream).
	HTTPStatus int `json:"http_status,omitempty" minimum:"100" maximum:"599"`
}

// Type is "retry".
func (Retry) Type() Type { return TypeRetry }

// ModelFallback reports that the run moved on to the next model of its `--fallback-model`
// chain: a model call still failed transiently after its retries (overload, 5xx, network),
// and is made again on that model, which the rest of the run uses. A `warning` says the
// same for people.
type ModelFallback struct {
	// The step whose model call failed; 0 for a compaction's summary.
	Step int `json:"step" minimum:"0"`
	// The model that kept failing (its model id).
	From string `json:"from" minLength:"1"`
	// The fallback model now used, as `--fallback-model` named it (a config model or a model id).
	To string `json:"to" minLength:"1"`
	// The provider type of the fallback model (`kimi`, `openai_legacy`, `anthropic`, …); absent for an endpoint from the environment.
	Provider string `json:"provider,omitempty" minLength:"1"`
	// Why the last attempt on the failing model failed, in one line.
	Error string `json:"error"`
}

// Type is "model_fallback".
func (ModelFallback) Type() Type { return TypeModelFallback }

// Usage reports token usage after each model call, once its reply has fully streamed: every
// `tool_call` of the step comes before it.
//
// The counts are as the provider reported them wherever it put them: a usage chunk, inside
// the finishing choice (Moonshot), under `x_groq` (Groq).
type Usage struct {
	// The model call the usage is for.
	Step int `json:"step" minimum:"1"`
	// Prompt tokens of the call.
	InputTokens int `json:"input_tokens" minimum:"0"`
	// Completion tokens of the call.
	OutputTokens int `json:"output_tokens" minimum:"0"`
	// The prompt tokens served from the provider's cache (`usage.cached_tokens` or
	// `prompt_tokens_details.cached_tokens`).
	CachedTokens int `json:"cached_tokens" minimum:"0"`
	// The part of `output_tokens` spent thinking, when the provider reports it
	// (`completion_tokens_details.reasoning_tokens`); absent otherwise.
	ReasoningTokens int `json:"reasoning_tokens,omitempty" minimum:"0"`
	// The prompt tokens written to the provider's prompt cache, part of `input_tokens`
	// and priced apart (Anthropic's `cache_creation_input_tokens`); absent when none.
	CacheWriteTokens int `json:"cache_write_tokens,omitempty" minimum:"0"`
	// The context's size after the call (its input and output tokens), what compaction is
	// measured by.
	ContextTokens int `json:"context_tokens" minimum:"0"`
}

// Type is "usage".
func (Usage) Type() Type { return TypeUsage }

// CompactionBegin starts a context compaction.
type CompactionBegin struct {
	// The context's size before compaction, in tokens.
	TokensBefore int `json:"tokens_before" minimum:"0"`
}

// Type is "compaction_begin".
func (CompactionBegin) Type() Type { return TypeCompactionBegin }

// CompactionEnd ends a context compaction.
type CompactionEnd struct {
	// The context's size before compaction, in tokens.
	TokensBefore int `json:"tokens_before" minimum:"0"`
	// The context's size after compaction, in tokens.
	TokensAfter int `json:"tokens_after" minimum:"0"`
	// Whether the summary failed and the oldest messages were dropped instead.
	Fallback bool `json:"fallback,omitempty"`
	// Why the summary failed, when it did.
	Error string `json:"error,omitempty" minLength:"1"`
}

// Type is "compaction_end".
func (CompactionEnd) Type() Type { return TypeCompactionEnd }

// Iteration marks a Ralph iteration or flow node that starts, and once more the end node
// when the flow reaches it (with the same `iteration` number).
type Iteration struct {
	// The iteration's number, from 1.
	Iteration int `json:"iteration" minimum:"1"`
	// The iteration budget; absent when unlimited.
	Max int `json:"max,omitempty" minimum:"1"`
	// The flow node that starts.
	Node string `json:"node"`
	// The branch taken to get here; on the end node, the choice that ended the flow, e.g.
	// `STOP`.
	Choice string `json:"choice,omitempty" minLength:"1"`
}

// Type is "iteration".
func (Iteration) Type() Type { return TypeIteration }

// Todo reports the agent's plan each time it updates it (SetTodoList).
type Todo struct {
	// The whole plan, in order.
	Items []TodoItem `json:"todos"`
}

// Type is "todo".
func (Todo) Type() Type { return TypeTodo }

// TodoItem is one entry of the agent's plan.
type TodoItem struct {
	// What the entry is about.
	Title string `json:"title"`
	// Where it stands.
	Status string `json:"status" enum:"pending,in_progress,done"`
}

// Warning reports something the run recovered from or wants a person to know: an ignored
// stdin, a session that cannot be kept, a model call silent for 30 s, an answer continued
// after the token limit, background processes stopped at the end, a skipped line of
// `--input-format stream-json` input, a `--json-schema` re-ask, running as root without a
// sandbox.
type Warning struct {
	// What happened, in one line.
	Message string `json:"message"`
}

// Type is "warning".
func (Warning) Type() Type { return TypeWarning }

// Answer reports that one message read with `--input-format stream-json` was answered, before
// the next is read.
//
// It is written when the message's turn (or Ralph loop) ended well, and only with
// `--input-format stream-json`.
type Answer struct {
	// The count of messages answered, from 1; a `-p` prompt is the first.
	Message int `json:"message" minimum:"1"`
	// The message's line on stdin; absent for the `-p` prompt.
	Line int `json:"line,omitempty" minimum:"1"`
	// The answer: the text of the turn's last step.
	FinalText string `json:"final_text"`
}

// Type is "answer".
func (Answer) Type() Type { return TypeAnswer }

// Hook reports that one of the user's hook commands ran (config.toml `[[hooks]]`).
type Hook struct {
	// The hook event that ran it.
	Event string `json:"event" enum:"PreToolUse,PostToolUse,PostToolUseFailure,UserPromptSubmit,Stop,StopFailure,SessionStart,SessionEnd,SubagentStart,SubagentStop,PreCompact,PostCompact,Notification"`
	// What the matcher was tested against: the tool name, the stop's error type, the
	// session's source, ...
	Target string `json:"target,omitempty"`
	// The tool call a tool hook ran for.
	ToolCallID string `json:"tool_call_id,omitempty" minLength:"1"`
	// The hook's command, on one line, at most 80 bytes.
	Command string `json:"command"`
	// The command's exit status; -1 when it was killed or did not start.
	ExitCode int `json:"exit_code" minimum:"-1"`
	// How long the command ran, in milliseconds.
	DurationMS int64 `json:"duration_ms" minimum:"0"`
	// Whether the hook blocked the action (exit 2, or permissionDecision deny).
	Blocked bool `json:"blocked"`
	// What a blocking hook said (it goes back to the model), at most 500 bytes.
	Reason string `json:"reason,omitempty"`
	// Whether the hook was killed at its timeout.
	TimedOut bool `json:"timed_out,omitempty"`
}

// Type is "hook".
func (Hook) Type() Type { return TypeHook }

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

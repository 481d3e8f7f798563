package event

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
	SessionID string `json:"session_id" volatile:"true"`
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
	DurationMS int64 `json:"duration_ms" minimum:"0" volatile:"true"`
	// Whether the hook blocked the action (exit 2, or permissionDecision deny).
	Blocked bool `json:"blocked"`
	// What a blocking hook said (it goes back to the model), at most 500 bytes.
	Reason string `json:"reason,omitempty"`
	// Whether the hook was killed at its timeout.
	TimedOut bool `json:"timed_out,omitempty"`
}

// Type is "hook".
func (Hook) Type() Type { return TypeHook }

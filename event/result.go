package event

import "encoding/json"

// Result ends every run: always the last line, on success, on every limit, on errors and on
// SIGINT, SIGTERM or --timeout.
//
// Nothing follows it. A usage error found before the run starts makes it the only line.
type Result struct {
	// `success` exactly when `exit_code` is 0.
	Status string `json:"status" enum:"success,error"`
	// Why the run ended: `completed`, `stop` (Ralph STOP), `max_steps`, `repeat`, `truncated`
	// (the final answer was still cut at the completion token limit after two
	// continuations), `max_iterations`, `timeout`, `cancelled`, `error`, `auth`, `transient`,
	// `busy` (the session is in use by another run), `budget` (`--max-tokens-total`,
	// `--max-cost-usd` or `--max-tool-calls` ran out), `schema` (the final answer never matched `--json-schema`),
	// `quota` (the account is out of credit), `filtered` (the provider ended the reply with a
	// `finish_reason` other than `stop`, `tool_calls` or `length`), `denied` (with
	// `--fail-on-denial`: the run would have succeeded, but a tool call was refused),
	// `background_timeout` (background tasks were still running at `[background]
	// print_wait_ceiling_s`: they were stopped and the model summed up).
	TerminalReason string `json:"terminal_reason" enum:"completed,stop,max_steps,repeat,truncated,max_iterations,timeout,cancelled,error,auth,transient,busy,budget,schema,quota,filtered,denied,background_timeout"`
	// The process's exit code (see Exit codes).
	ExitCode int `json:"exit_code" enum:"0,1,2,3,4,5,6,7,8,9,75,124,129,130,131,143"`
	// The model's final answer (the text of the last step); may be empty on errors.
	FinalText string `json:"final_text"`
	// With `--json-schema`, on success: the final answer as the JSON value that matched the
	// schema (code fences removed).
	StructuredOutput json.RawMessage `json:"structured_output,omitempty"`
	// Why the run failed; present exactly when `status` is `error`.
	Error *ErrorInfo `json:"error,omitempty"`
	// The model calls of the whole run.
	Steps int `json:"steps" minimum:"0"`
	// The tool calls of the whole run, subagents' included.
	ToolCalls int `json:"tool_calls" minimum:"0"`
	// The tool calls of `tool_calls` by tool name, e.g. `{"Shell": 3, "ReadFile": 2}`;
	// absent when the run made none.
	ToolCallsByTool map[string]int `json:"tool_calls_by_tool,omitempty"`
	// How many tool calls were refused (the `tool_denied` events, subagents' included): by
	// the tool rules, the sandbox, the guard of secret files or a hook; absent when none.
	ToolDenials int `json:"tool_denials,omitempty" minimum:"0"`
	// Every file the run created, modified or deleted under its work dirs (the work dir and
	// the `--add-dir` dirs), sorted by path; absent when none. The file tools' writes are
	// always seen; what commands and MCP servers change is seen in work dirs inside a git
	// repository (files git ignores left out), by comparing the files before the first such
	// call with the files at the end.
	// kimi-run's own files (its session, its stdout and stderr redirected into a work dir,
	// `-o`) are never listed. A run that continues a killed run's turn lists the whole turn.
	FilesChanged []FileChange `json:"files_changed,omitempty"`
	// The work dirs where commands or MCP servers ran but what they changed cannot be seen
	// (not in a git repository, git failed there, or `--files-changed tools`): there
	// `files_changed` holds only what the file tools changed. `.` is the work dir, an
	// `--add-dir` dir is absolute. Absent when every change could be seen.
	FilesUnseen []string `json:"files_unseen,omitempty" minLength:"1"`
	// Under `--sandbox`, the git settings of the work dirs' repositories the run changed:
	// files under the repository's `config`, `hooks/` and `info/`, which git obeys in the
	// job's later steps, outside the sandbox (a warning says so too). Paths as in
	// `files_changed`; absent when none changed.
	GitSettingsChanged []string `json:"git_settings_changed,omitempty" minLength:"1"`
	// Each refused tool call and the rule behind it, in the order they happened; absent
	// when none. With `--fail-on-denial`, a run that would have exited 0 exits 9 when this
	// list is not empty.
	Denials []Denial `json:"denials,omitempty"`
	// Ralph or flow node executions; 0 without Ralph or a flow.
	Iterations int `json:"iterations" minimum:"0"`
	// The last `<choice>` a flow decision took.
	LastChoice string `json:"last_choice,omitempty" minLength:"1"`
	// The token usage summed over the run.
	Usage UsageTotals `json:"usage"`
	// The run's wall-clock duration, in milliseconds.
	DurationMS int64 `json:"duration_ms" minimum:"0" volatile:"true"`
	// The run's session id, as in `init`.
	SessionID string `json:"session_id" volatile:"true"`
	// Present when the session could not be saved whole (a full disk, a failed sync): it ends
	// at the last record written, and resuming it continues from there; or `last-session`
	// could not be updated, so `--continue` will not pick this run. The exit code is what the
	// run itself earned (0 stays 0); this field, a `warning` event and the text summary tell
	// the run apart from a clean one.
	SessionWarning string `json:"session_warning,omitempty" minLength:"1"`
	// The background tasks the run started (Shell with `run_in_background`), in the order
	// they started, as they were when it ended: `running` for those it left running
	// (`[background] keep_alive_on_exit`), `killed` with `stopped_by` for those it
	// stopped. Absent when it started none.
	BackgroundTasks []BackgroundTask `json:"background_tasks,omitempty"`
	// What restoring the session had to repair, one line each, as the `warning` events said
	// it: lines skipped or cut, tool calls answered as interrupted, or a history that was
	// lost (a context file missing, empty or holding only a system prompt although a run had
	// finished on the session: the run then started it again from its prompt). Absent when
	// the session is new or came back whole.
	SessionRepairs []string `json:"session_repairs,omitempty"`
}

// Type is "result".
func (Result) Type() Type { return TypeResult }

// ErrorInfo describes why a run failed.
type ErrorInfo struct {
	// The class of failure: `usage`, `provider`, `auth`, `transient`, `timeout`, `cancelled`,
	// `max_steps`, `repeat`, `hook` (a UserPromptSubmit hook refused the prompt), `budget`,
	// `schema`, `quota`, `filtered`, `denied`, `config` (a web page answered where the API should be: the
	// base URL looks wrong), `error`, `replay` (a `--replay` that diverged), `output` (the `-o`
	// file could not be written), ...
	Kind string `json:"kind" minLength:"1"`
	// One line; for `schema`, the validator's findings and the last answer.
	Message string `json:"message"`
	// The provider's HTTP status, when the failure came with one.
	HTTPStatus int `json:"http_status,omitempty" minimum:"100" maximum:"599"`
	// Whether the same run may succeed when tried again later (a transient failure).
	Retryable bool `json:"retryable"`
}

// FileChange is one file in `files_changed`.
type FileChange struct {
	// The file's path: relative to the work dir (with `/`) when it is inside it, else
	// absolute.
	Path string `json:"path" minLength:"1"`
	// `created`, `modified` or `deleted`, between the start of the run and its end.
	Change string `json:"change" enum:"created,modified,deleted"`
	// Lines added, as a unified diff counts them (git's `--numstat`); 0 when `binary`.
	LinesAdded int `json:"lines_added" minimum:"0"`
	// Lines removed, counted the same way; 0 when `binary`.
	LinesRemoved int `json:"lines_removed" minimum:"0"`
	// Present, and true, when the lines were not counted: a binary file (a NUL byte near
	// its start), or one larger than 8 MiB that only a file tool wrote.
	Binary bool `json:"binary,omitempty"`
}

// Denial is one refused tool call in the result, as its `tool_denied` event said it.
type Denial struct {
	// The tool call's id.
	ID string `json:"id" minLength:"1"`
	// The tool's name.
	Name string `json:"name" minLength:"1"`
	// What refused it: `rules`, `sandbox`, `guard` or `hook` (see `tool_denied`).
	Source string `json:"source" enum:"rules,sandbox,guard,hook"`
	// The rule that refused it; absent when no allow rule matched.
	Rule string `json:"rule,omitempty" minLength:"1"`
	// Why, as the `tool_denied` event said it.
	Message string `json:"message"`
	// The Agent call whose subagent made the call; absent for the run's own calls.
	ParentToolCallID string `json:"parent_tool_call_id,omitempty" minLength:"1"`
}

// UsageTotals sums token usage over a run.
type UsageTotals struct {
	// Prompt tokens of every model call.
	InputTokens int `json:"input_tokens" minimum:"0"`
	// Completion tokens of every model call.
	OutputTokens int `json:"output_tokens" minimum:"0"`
	// The prompt tokens served from the provider's cache.
	CachedTokens int `json:"cached_tokens" minimum:"0"`
	// The part of `output_tokens` spent thinking, as the provider reported it; absent when
	// none was reported.
	ReasoningTokens int `json:"reasoning_tokens,omitempty" minimum:"0"`
	// The prompt tokens written to the provider's prompt cache, part of `input_tokens`;
	// absent when none were.
	CacheWriteTokens int `json:"cache_write_tokens,omitempty" minimum:"0"`
	// The usage priced in US dollars; absent when the model's prices are unknown (set them
	// with flags or the model's config entry).
	CostUSD *float64 `json:"cost_usd,omitempty" minimum:"0"`
}

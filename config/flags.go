package config

import (
	"time"

	"github.com/kimi-run/kimi-run/tools"
)

// Flags is the command line of kimi-run as kong parses it, with each declared setting the
// command line leaves out filled from its other sources (declared.go): a field whose tags
// name an environment variable, a config key or a Kimi alias holds the setting whatever its
// source. It is never changed after parsing: Resolve reads it, with the environment and the
// files, into Settings, and checks it. A setting with one declared value is read from
// Settings.Flags; one that needs more (a model's config entry, a key family) from its field
// of Settings.
type Flags struct {
	Prompt       string        `short:"p" placeholder:"TEXT" help:"The task. Use - to read it from stdin. With a prompt, piped stdin is attached as context."`
	Words        []string      `arg:"" optional:"" name:"prompt" help:"The task as words, when -p is not used."`
	PromptFile   string        `name:"prompt-file" placeholder:"FILE" help:"Read the task from FILE."`
	NoStdin      bool          `name:"no-stdin" help:"Never read stdin, even when it is a pipe."`
	StdinTimeout time.Duration `name:"stdin-timeout" default:"60s" help:"With a prompt given, ignore a piped stdin that sends nothing for this long (0: wait; 10s under CI=true unless given)."`
	OutputFormat string        `name:"output-format" enum:"text,stream-json,json" default:"text" help:"text: the answer on stdout, progress on stderr. stream-json: NDJSON events (schema v1). json: the result event alone, at the end."`

	Model             string        `short:"m" placeholder:"NAME" help:"Model name (env KIMI_MODEL_NAME, OPENAI_MODEL)."`
	BaseURL           string        `name:"base-url" placeholder:"URL" help:"OpenAI-compatible endpoint (env KIMI_BASE_URL with KIMI_API_KEY, OPENAI_BASE_URL with OPENAI_API_KEY; default https://api.moonshot.ai/v1)."`
	Thinking          *bool         `negatable:"" help:"Ask a Kimi thinking model to think (--thinking) or not (--no-thinking). Unset sends nothing."`
	MaxSteps          int           `name:"max-steps" placeholder:"N" default:"1000" config:"loop_control.max_steps_per_turn,loop_control.max_steps_per_run" help:"Most model calls in one turn, at least 1 (default ${default}); reaching it exits 3."`
	MaxRetries        *int          `name:"max-retries" placeholder:"N" help:"Retries of a model call that fails transiently (429, 5xx, network); 0 tries once. Default 2, i.e. 3 attempts, or loop_control.max_retries_per_step less one."`
	ConfigFile        string        `name:"config-file" placeholder:"FILE" help:"Kimi CLI config file, TOML or JSON (default ~/.kimi/config.toml when it exists)."`
	MaxContextSize    int           `name:"max-context-size" placeholder:"TOKENS" envvar:"KIMI_MODEL_MAX_CONTEXT_SIZE" help:"The model's context window (default: its max_context_size in config.toml): compact before it fills, and cap replies to what fits."`
	Timeout           time.Duration `placeholder:"DURATION" help:"Wall-clock limit for the whole run, e.g. 30m; reaching it exits 124. 0 means none."`
	StreamIdleTimeout time.Duration `name:"stream-idle-timeout" default:"120s" help:"Abandon and retry a model stream that sends nothing for this long."`
	MaxReplyBytes     int           `name:"max-reply-bytes" placeholder:"BYTES" default:"16777216" config:"loop_control.max_reply_bytes" help:"Most bytes of one model reply (16 MiB): a longer one is cut and asked again like a broken stream."`
	WorkDir           string        `name:"work-dir" short:"w" placeholder:"DIR" help:"Directory the agent works in (default: the current directory)."`

	Ralph      int    `placeholder:"N" config:"loop_control.max_ralph_iterations" help:"Repeat the task up to N more times until the model chooses STOP (-1: no limit, 0: off). Used up without STOP exits 4."`
	RalphFresh bool   `name:"ralph-fresh" help:"Start each Ralph iteration or flow node from the first context: the model keeps only what it wrote to files."`
	Flow       string `placeholder:"FILE" help:"Run a prompt flow: a Mermaid (.mmd, or a fenced block in .md) or D2 (.d2) flowchart."`
	MaxMoves   int    `name:"max-moves" default:"1000" help:"Most node executions of a --flow run; used up exits 4."`

	Session    string `short:"S" placeholder:"ID" help:"Resume session ID, or create it if it does not exist."`
	Continue   bool   `short:"C" help:"Resume the last session of this work dir that exited 0."`
	NoSession  bool   `name:"no-session" help:"Write no session file."`
	SessionDir string `name:"session-dir" placeholder:"DIR" help:"Keep sessions in DIR (default: a folder per work dir under $XDG_STATE_HOME or ~/.local/state/kimi-run)."`
	// Fork and rewind (issue 32 #4).
	ForkSession string `name:"fork-session" placeholder:"ID" help:"Run the prompt in a new session holding a copy of session ID's conversation, which stays as it is; --session NAME names the copy."`
	Rewind      *int   `name:"rewind" placeholder:"CHECKPOINT" help:"Continue the session from its checkpoint CHECKPOINT (--show-session lists them); what came after is dropped, kept in a backup file."`
	RewindFiles bool   `name:"rewind-files" help:"With --rewind, also put back the files WriteFile and StrReplaceFile changed since the checkpoint (not what commands changed)."`
	// Session housekeeping (issue 21 #13): modes that print and run nothing.
	ListSessions bool   `name:"list-sessions" help:"List the work dir's sessions, newest first, and exit (NDJSON with --output-format stream-json)."`
	ShowSession  string `name:"show-session" placeholder:"ID" help:"Print session ID's conversation and exit; NDJSON with --output-format stream-json."`
	DMail        bool   `name:"dmail" help:"Give the agent SendDMail: it may rewind its own context with a note to its past self."`

	// Agents, workspace and skills, as Kimi CLI names them (docs: docs/extending.md "Agent files", "Skills").
	Agent     string   `placeholder:"NAME" help:"Built-in agent: default, or okabe (default plus SendDMail). Not with --agent-file."`
	AgentFile string   `name:"agent-file" placeholder:"FILE" help:"Kimi CLI agent file (YAML): prompt template, tools, subagents; may extend default or okabe."`
	AddDir    []string `name:"add-dir" placeholder:"DIR" help:"Another directory the agent may work in, writable under --sandbox workspace-write (repeatable; created when missing)."`
	SkillsDir []string `name:"skills-dir" placeholder:"DIR" help:"Look for skills only in DIR instead of the project's and the user's skill directories (repeatable)."`

	// What the peers' headless modes offer a CI author (issue 21 #10-#12).
	SystemPrompt       string   `name:"system-prompt" placeholder:"TEXT|FILE" help:"Use this system prompt (the text, or the content of FILE) instead of the agent's. New sessions only."`
	AppendSystemPrompt string   `name:"append-system-prompt" placeholder:"TEXT|FILE" help:"Add this text (or the content of FILE) after the agent's system prompt. New sessions only."`
	Image              []string `name:"image" short:"i" sep:"none" placeholder:"FILE" help:"Attach this image (PNG, JPEG, GIF or WebP) to the prompt; repeatable. Needs a model with the image_in capability."`
	Bare               bool     `name:"bare" help:"Read no config.toml, mcp.json, hooks, skills, plugins or AGENTS.md: only the files the command line names. The environment still applies."`
	FallbackModel      []string `name:"fallback-model" placeholder:"NAME" config:"fallback_models" help:"When a model call still fails transiently after the retries, go on with model NAME (a [models] entry, or a model id on the endpoint); repeatable, tried in order."`

	Quiet     bool             `short:"q" help:"No progress on stderr (errors still are)."`
	Heartbeat time.Duration    `name:"heartbeat" placeholder:"DURATION" default:"15s" envvar:"KIMI_RUN_HEARTBEAT" help:"Report a running tool call, and the wait for background tasks, every DURATION (0: never): a tool_progress or task_wait event in stream-json, a stderr line in text mode."`
	LogLevel  string           `name:"log-level" enum:"debug,info,warn,error" default:"info" help:"Detail of stderr in text mode: debug adds turns and usage; warn only warnings and errors; error only why a run failed."`
	Version   PrintVersionFlag `short:"V" help:"Print the version and exit."`
	HelpAll   HelpAllFlag      `name:"help-all" help:"Show every flag, with its environment variables, config keys and default, and the exit codes."`

	// Shared sessions and background processes (issue 9).
	SessionWait    time.Duration `name:"session-wait" placeholder:"DURATION" help:"When another run is using the session, wait up to this long for it instead of exiting 75 at once."`
	PassEnv        []string      `name:"pass-env" placeholder:"NAME" help:"Let Shell commands, hooks and MCP servers see NAME although it holds a credential of kimi-run (KIMI_API_KEY, a config api_key...); repeatable."`
	OTelLogContent bool          `name:"otel-log-content" help:"With OpenTelemetry on, also put prompts, tool arguments and outputs and the answer on the spans, scrubbed of credentials."`
	KeepBackground bool          `name:"keep-background" help:"Leave running what Shell commands started in the background (&); by default it is stopped when the run ends."`
	// The built-in tools' knobs, declared beside the tools (tools/settings.go).
	tools.Settings
	// Notices of silence (hidden: tests shorten them).
	StdinNotice time.Duration `name:"stdin-notice" default:"3s" hidden:""`
	StallNotice time.Duration `name:"stall-notice" default:"30s" hidden:""`

	// The groups of --help: kong gives the fields of each embedded struct its group.
	MCPFlags       `group:"MCP servers"`
	GuardrailFlags `group:"Guardrails for unattended runs"`
	RecordFlags    `group:"Record, replay and CI"`
	KimiFlags      `group:"Kimi CLI compatibility"`

	// Release artefacts (issue 19 #3): the man page, generated from this model for the
	// release archives. Shell completions are `kimi-run completion SHELL` (completion/).
	ManPage bool `name:"man-page" help:"Print the man page (roff, man(7)) and exit: kimi-run --man-page > ~/.local/share/man/man1/kimi-run.1"`

	// Test and tuning knobs, hidden from --help.
	RetryBaseDelay time.Duration `name:"retry-base-delay" default:"1s" hidden:""`
	RetryMaxDelay  time.Duration `name:"retry-max-delay" default:"60s" hidden:""`
	// FilesChangedGitLimit bounds files_changed's git on one repository; 0 is its own.
	FilesChangedGitLimit time.Duration `name:"files-changed-git-limit" hidden:""`

	// given names the flags set on the command line (NoteGiven, right after parsing), so
	// that an explicit value (even 0) can beat the config file and clashing synonyms can be
	// refused.
	given map[string]bool `kong:"-"`
	// times counts how often each flag was given: one that takes a single value and came
	// twice (-p x -p y) would otherwise keep the last without a word.
	times map[string]int `kong:"-"`
	// src is the declared settings' resolver (NewParser): the config file it loaded, where
	// each value came from, the values that did not parse.
	src *source `kong:"-"`
}

// MCPFlags are the flags of MCP servers (issue 11): Kimi CLI's mcp.json, over stdio and
// streamable HTTP.
type MCPFlags struct {
	MCPConfigFile     []string      `name:"mcp-config-file" sep:"none" placeholder:"FILE" help:"Start the MCP servers of FILE, a Kimi CLI mcp.json; repeatable. Default: ~/.kimi/mcp.json when it exists."`
	MCPConfig         []string      `name:"mcp-config" sep:"none" placeholder:"JSON" help:"Start the MCP servers of this JSON text, in the same shape; repeatable, added to the files."`
	NoMCP             bool          `name:"no-mcp" help:"Start no MCP server at all, whatever the config files and flags say."`
	MCPStrict         bool          `name:"mcp-strict" help:"Exit 2 before any model call if an MCP server fails to start (default: warn and go on without it)."`
	MCPStartupTimeout time.Duration `name:"mcp-startup-timeout" default:"30s" help:"Time each MCP server gets to start and list its tools; servers start in parallel."`
	MCPCallTimeout    time.Duration `name:"mcp-call-timeout" placeholder:"DURATION" config:"mcp.client.tool_call_timeout_ms" help:"Time one MCP tool call may take (default 60s)."`
}

// GuardrailFlags are the guardrails for unattended runs (issue 12): budgets, structured
// output, tool rules, sandbox.
type GuardrailFlags struct {
	MaxTokensTotal   int      `name:"max-tokens-total" placeholder:"N" help:"Most input+output tokens the whole run may use, subagents and compaction included; running out exits 6."`
	MaxCostUSD       float64  `name:"max-cost-usd" placeholder:"USD" help:"Most US dollars the whole run may cost, from the model's prices; running out exits 6."`
	MaxToolCalls     int      `name:"max-tool-calls" placeholder:"N" config:"loop_control.max_tool_calls" help:"Most tool calls the whole run may make, subagents' included (0: no limit); past it the run ends with exit 6."`
	PriceInput       *float64 `name:"price-input" placeholder:"USD" help:"Price per million input tokens (default: price_input of the model's config.toml entry)."`
	PriceCachedInput *float64 `name:"price-cached-input" placeholder:"USD" help:"Price per million cached input tokens (default: price_cached_input, else the input price)."`
	PriceCacheWrite  *float64 `name:"price-cache-write" placeholder:"USD" help:"Price per million tokens written to the prompt cache (default: price_cache_write, else 1.25 times the input price)."`
	PriceOutput      *float64 `name:"price-output" placeholder:"USD" help:"Price per million output tokens (default: price_output of the model's config.toml entry)."`
	JSONSchema       string   `name:"json-schema" aliases:"output-schema" placeholder:"SCHEMA" help:"The final answer must be JSON valid against this schema (a file or inline JSON): asked again twice, then exit 7. Also --output-schema."`
	Tools            []string `name:"tools" sep:"none" placeholder:"LIST" help:"Offer exactly these tools (comma-separated names)."`
	AllowedTools     []string `name:"allowed-tools" sep:"none" placeholder:"RULES" help:"Run only tool calls matching these rules: Name, or Shell(GLOB) on the command line; tools no rule names are not offered."`
	DisallowedTools  []string `name:"disallowed-tools" sep:"none" placeholder:"RULES" help:"Refuse tool calls matching these rules (same syntax; a bare Name removes the tool). Deny beats allow."`
	Sandbox          string   `name:"sandbox" enum:"off,read-only,workspace-write" default:"off" help:"Confine Shell commands and file tools with Landlock: read-only (writes only to the temp dir) or workspace-write (also the work dirs)."`
	SandboxNetwork   string   `name:"sandbox-network" enum:"on,off" default:"on" help:"off: Shell commands may not open or accept TCP connections, and FetchURL is refused (Landlock)."`
	AllowHost        []string `name:"allow-host" placeholder:"HOST[:PORT]" config:"sandbox.allow_hosts" help:"Let commands (through a proxy kimi-run runs) and FetchURL reach only these hosts; repeatable. HOST alone: ports 80 and 443; *.example.com: subdomains."`
	AllowHostPort    int      `name:"allow-host-port" hidden:""`
	FailOnDenial     bool     `name:"fail-on-denial" envvar:"KIMI_RUN_FAIL_ON_DENIAL" help:"Exit 9 instead of 0 when a tool call was refused (rules, sandbox, secret files, a hook); result.denials lists them."`
}

// RecordFlags are for CI (issue 13): record and replay of model traffic, the answer file,
// the event schema.
type RecordFlags struct {
	Record            string  `name:"record" placeholder:"FILE" help:"Write every model exchange to the cassette FILE (JSONL), with keys and secrets scrubbed."`
	Replay            string  `name:"replay" placeholder:"FILE" help:"Answer every model call from the cassette FILE instead of the network (no key needed); tools still run."`
	ReplayMode        string  `name:"replay-mode" enum:"strict,exact,lenient" default:"strict" help:"strict: a request unlike the recording (tool output aside), or a cassette not used up, exits 1. exact: tool output compared too. lenient: answer in order."`
	ReplaySpeed       float64 `name:"replay-speed" default:"1" placeholder:"X" help:"Play the recorded timing (chunks, pauses, retry waits) X times faster; 0 waits for nothing."`
	OutputLastMessage string  `name:"output-last-message" short:"o" placeholder:"FILE" help:"Also write the final answer to FILE, whatever the output format; on failure too (the last text, or empty)."`
	FilesChanged      string  `name:"files-changed" enum:"git,tools" default:"git" envvar:"KIMI_RUN_FILES_CHANGED" help:"How result.files_changed sees what commands change: git (git status at the first command and at the end) or tools (the file tools' writes only)."`
	PrintSchema       bool    `name:"print-schema" help:"Print the JSON Schema of the stream-json events (docs/events.schema.json) and exit."`
}

// KimiFlags are Kimi CLI's print-mode names, so its users' scripts run unchanged
// (sets:"flag" names the flag one sets; config/kimi.go has the rest).
type KimiFlags struct {
	Print              bool    `help:"Kimi CLI's print mode, which kimi-run always runs in; with --output-format stream-json, stdout carries Kimi CLI's message lines."`
	Yolo               bool    `short:"y" aliases:"yes,auto-approve" help:"Accepted, as --yes and --auto-approve: every tool call is always approved."`
	AFK                bool    `name:"afk" help:"Accepted: kimi-run never waits for a person."`
	Command            *string `short:"c" placeholder:"TEXT" help:"The task, as -p."`
	FinalMessageOnly   bool    `name:"final-message-only" help:"Only the final assistant message: with --print --output-format stream-json, one assistant line per answer."`
	MaxStepsPerTurn    int     `name:"max-steps-per-turn" placeholder:"N" sets:"max-steps" help:"As --max-steps."`
	MaxRetriesPerStep  int     `name:"max-retries-per-step" placeholder:"N" help:"Attempts per model call, the first included, as Kimi CLI counts them (beats loop_control.max_retries_per_step)."`
	MaxRalphIterations *int    `name:"max-ralph-iterations" placeholder:"N" sets:"ralph" help:"As --ralph (-1: no limit, 0: off); beats loop_control.max_ralph_iterations."`
	Resume             string  `short:"r" placeholder:"ID" sets:"session" help:"As --session."`
	Config             string  `name:"config" placeholder:"TEXT" help:"The whole config as inline JSON or TOML (JSON tried first), in place of the config file."`
	Verbose            bool    `help:"Accepted and ignored, as in Kimi CLI."`
	Debug              bool    `help:"As --log-level debug."`
	InputFormat        string  `name:"input-format" enum:"text,stream-json" default:"text" help:"text, or stream-json: read Kimi CLI user messages from stdin, one per line, and answer each in one conversation."`
}

package run

import (
	"time"

	"github.com/alecthomas/kong"
)

// CLI is the command line of kimi-run. Flags beat the environment, which beats defaults.
type CLI struct {
	Prompt       string        `short:"p" placeholder:"TEXT" help:"The task. Use - to read it from stdin. With a prompt, piped stdin is attached as context."`
	Words        []string      `arg:"" optional:"" name:"prompt" help:"The task as words, when -p is not used."`
	PromptFile   string        `name:"prompt-file" placeholder:"FILE" help:"Read the task from FILE."`
	NoStdin      bool          `name:"no-stdin" help:"Never read stdin, even when it is a pipe."`
	StdinTimeout time.Duration `name:"stdin-timeout" default:"60s" help:"With a prompt given, ignore a piped stdin that sends nothing at all for this long (0: wait for it)."`
	OutputFormat string        `name:"output-format" enum:"text,stream-json" default:"text" help:"text: the final answer on stdout, progress on stderr. stream-json: NDJSON events on stdout (schema v1)."`

	Model             string        `short:"m" placeholder:"NAME" help:"Model name (env KIMI_MODEL_NAME, OPENAI_MODEL)."`
	BaseURL           string        `name:"base-url" placeholder:"URL" help:"OpenAI-compatible endpoint (env KIMI_BASE_URL with KIMI_API_KEY, OPENAI_BASE_URL with OPENAI_API_KEY; default https://api.moonshot.ai/v1)."`
	Thinking          *bool         `negatable:"" help:"Ask a Kimi thinking model to think (--thinking) or not (--no-thinking). Unset sends nothing."`
	MaxSteps          int           `name:"max-steps" placeholder:"N" help:"Most model calls in one turn (default 1000, or loop_control.max_steps_per_turn); reaching it exits 3."`
	MaxRetries        int           `name:"max-retries" placeholder:"N" help:"Attempts per model call for transient failures: 429, 5xx, network, cut streams (default 3, or loop_control.max_retries_per_step)."`
	ConfigFile        string        `name:"config-file" placeholder:"FILE" help:"Kimi CLI config file (TOML, or JSON by extension) with providers, models and loop_control (default ~/.kimi/config.toml when it exists)."`
	MaxContextSize    int           `name:"max-context-size" placeholder:"TOKENS" help:"The model's context window (env KIMI_MODEL_MAX_CONTEXT_SIZE). The context is compacted before it fills; requests ask for at most the completion tokens that fit. Unset: compact at 128k and send no completion cap."`
	Timeout           time.Duration `placeholder:"DURATION" help:"Wall-clock limit for the whole run, e.g. 30m; reaching it exits 124. 0 means none."`
	StreamIdleTimeout time.Duration `name:"stream-idle-timeout" default:"120s" help:"Abandon and retry a model stream that sends nothing for this long."`
	WorkDir           string        `name:"work-dir" short:"w" placeholder:"DIR" help:"Directory the agent works in (default: the current directory)."`

	Ralph      int    `placeholder:"N" help:"Repeat the task up to N more times until the model chooses STOP (-1: no limit, 0: off). Used up without STOP exits 4."`
	RalphFresh bool   `name:"ralph-fresh" help:"Start each Ralph iteration or flow node from the context as it was before the first: the model keeps only what it wrote to files."`
	Flow       string `placeholder:"FILE" help:"Run a prompt flow: a Mermaid (.mmd, or a fenced block in .md) or D2 (.d2) flowchart."`
	MaxMoves   int    `name:"max-moves" default:"1000" help:"Most node executions of a --flow run; used up exits 4."`

	Session    string `short:"S" placeholder:"ID" help:"Resume session ID, or create it if it does not exist."`
	Continue   bool   `short:"C" help:"Resume the last session of this work dir that exited 0."`
	NoSession  bool   `name:"no-session" help:"Write no session file."`
	SessionDir string `name:"session-dir" placeholder:"DIR" help:"Keep sessions in DIR (default: a folder per work dir under $XDG_STATE_HOME or ~/.local/state/kimi-run)."`
	DMail      bool   `name:"dmail" help:"Give the agent SendDMail: it may rewind its own context to a checkpoint with a note to its past self."`

	Quiet    bool             `short:"q" help:"No progress on stderr (errors still are)."`
	LogLevel string           `name:"log-level" enum:"debug,info,warn,error" default:"info" help:"Detail of stderr in text mode: debug adds turns, usage and thinking notes; warn and error show only failures, like --quiet."`
	Version  kong.VersionFlag `short:"V" help:"Print the version and exit."`

	// CI: record and replay of model traffic, the answer file, the event schema (issue 13).
	Record            string  `name:"record" placeholder:"FILE" help:"Write every model exchange of the run (requests, streamed replies, timing) to the cassette FILE (JSONL), with keys and configured secrets scrubbed."`
	Replay            string  `name:"replay" placeholder:"FILE" help:"Answer every model call from the cassette FILE instead of the network: no key, base URL or network needed (the endpoint and model come from the cassette); tools still run. A request that differs from the recording stops the run (exit 1)."`
	ReplayMode        string  `name:"replay-mode" enum:"strict,lenient" default:"strict" help:"strict: a request that differs from the recording, or a run that does not use all of it, fails (exit 1). lenient: answer in recorded order whatever is asked."`
	ReplaySpeed       float64 `name:"replay-speed" default:"1" placeholder:"X" help:"Play the recorded timing (chunks, pauses, retry waits) X times faster; 0 waits for nothing."`
	OutputLastMessage string  `name:"output-last-message" short:"o" placeholder:"FILE" help:"Also write the final answer to FILE (atomically), whatever the output format. Written on failure too, with the model's last text or empty: check the exit code."`
	PrintSchema       bool    `name:"print-schema" help:"Print the JSON Schema of the stream-json events (docs/events.schema.json) and exit."`

	// Test and tuning knobs, hidden from --help.
	RetryBaseDelay time.Duration `name:"retry-base-delay" default:"1s" hidden:""`
	RetryMaxDelay  time.Duration `name:"retry-max-delay" default:"60s" hidden:""`
}

const description = `Run a coding agent once, without a person present: every tool is approved automatically.

Exit codes: 0 done, 1 runtime error, 2 usage error, 3 step limit or loop guard,
4 Ralph/flow budget used up, 5 authentication refused, 75 transient provider failure
after retries, 124 --timeout, 130/143 SIGINT/SIGTERM.`

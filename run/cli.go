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
	MaxSteps          *int          `name:"max-steps" placeholder:"N" help:"Most model calls in one turn, at least 1 (default 1000, or loop_control.max_steps_per_turn); reaching it exits 3."`
	MaxRetries        *int          `name:"max-retries" placeholder:"N" help:"Retries of a model call after its first attempt fails transiently (429, 5xx, network, cut streams); 0 tries once. Default 2, i.e. 3 attempts, or loop_control.max_retries_per_step, which counts attempts as in Kimi CLI."`
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

	// Edges (issue 9): shared sessions, background processes, notices of silence.
	SessionWait    time.Duration `name:"session-wait" placeholder:"DURATION" help:"When another run is using the session, wait up to this long for it to end instead of failing at once with exit 2."`
	KeepBackground bool          `name:"keep-background" help:"Leave running what Shell commands started in the background. By default they are stopped (SIGTERM, then SIGKILL) when the run ends."`
	// Notices of silence (hidden: tests shorten them).
	StdinNotice time.Duration `name:"stdin-notice" default:"3s" hidden:""`
	StallNotice time.Duration `name:"stall-notice" default:"30s" hidden:""`

	// Test and tuning knobs, hidden from --help.
	RetryBaseDelay time.Duration `name:"retry-base-delay" default:"1s" hidden:""`
	RetryMaxDelay  time.Duration `name:"retry-max-delay" default:"60s" hidden:""`

	// given names the flags set on the command line (filled after parsing).
	given map[string]bool `kong:"-"`
}

const description = `Run a coding agent once, without a person present: every tool is approved automatically.

Environment (flags win over it, and it over the config file):
  KIMI_API_KEY, KIMI_BASE_URL       key and endpoint (default https://api.moonshot.ai/v1)
  OPENAI_API_KEY, OPENAI_BASE_URL   used when KIMI_API_KEY is unset (default https://api.openai.com/v1)
  KIMI_MODEL_NAME, OPENAI_MODEL     model name, as --model
  KIMI_MODEL_MAX_CONTEXT_SIZE       context window in tokens, as --max-context-size
  KIMI_SHARE_DIR                    folder of Kimi CLI's config.toml (default ~/.kimi)
  XDG_STATE_HOME                    sessions go under $XDG_STATE_HOME/kimi-run (default ~/.local/state)
  NO_COLOR                          no colour on stderr
A server on localhost needs no key.

Exit codes: 0 done, 1 runtime error, 2 usage error, 3 step limit, loop guard or answer
cut at the token limit, 4 Ralph/flow budget used up, 5 authentication refused,
75 transient provider failure after retries (worth retrying later), 124 --timeout,
130/143 SIGINT/SIGTERM.`

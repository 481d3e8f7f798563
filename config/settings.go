// Package config resolves one run's configuration: the parsed flags, the environment,
// Kimi CLI's config.toml (or --config text), its mcp.json and the agent file become one
// typed Settings value, with the warnings to report once the run's event stream is open.
// It is resolved once, before anything runs, and only read after that. Precedence: a flag
// beats the environment, which beats the config file, which beats the default. A setting
// declared on its flag (declared.go) is filled in while the command line is parsed;
// Resolve does the rest, checks the flags' conflicts first and never changes the flags.
package config

import (
	"time"

	"github.com/kimi-run/kimi-run/agentspec"
	"github.com/kimi-run/kimi-run/hooks"
	"github.com/kimi-run/kimi-run/kimilogin"
	"github.com/kimi-run/kimi-run/model/cassette"
	"github.com/kimi-run/kimi-run/tools/background"
	"github.com/kimi-run/kimi-run/tools/plugin"
)

// Defaults that more than one source can override, in one place.
const (
	// DefaultKimiBaseURL and DefaultOpenAIBaseURL are the endpoints of the two key
	// families. A key is only ever sent to the endpoint family it came from: a CI job that
	// exports OPENAI_API_KEY for another tool must not have it sent to Moonshot.
	DefaultKimiBaseURL   = "https://api.moonshot.ai/v1"
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
	// DefaultMaxSteps and DefaultAttempts are Kimi CLI's loop control: model calls per
	// turn, and tries of one model call, the first included. The agent takes both from the
	// settings; --max-steps declares the first as its default and --max-retries' help
	// quotes the second, which TestLoopDefaults holds to these.
	DefaultMaxSteps = 1000
	DefaultAttempts = 3
	// DefaultMaxContext is the window assumed when none is configured: compaction still
	// keeps long runs alive, but no completion cap is derived from a guess.
	DefaultMaxContext = 128_000
	// CIStdinTimeout is the --stdin-timeout when the environment says it is CI. Runners
	// that hand a job an open stdin which never sends anything would otherwise cost every
	// job the full minute; a producer piped in front (`go test ./... | kimi-run -p …`) must
	// start writing within it, or the job passes --stdin-timeout itself.
	CIStdinTimeout = 10 * time.Second
)

// Settings is one run's resolved configuration. A setting declared on its flag (an
// environment variable, a config key, a Kimi alias: declared.go) is read from Flags, which
// the parser filled from those sources; one that needs more than that (a model's config
// entry, a key family, a default that depends on the environment) from its field here.
type Settings struct {
	// Flags is the command line as parsed, the declared settings filled in.
	Flags Flags
	// Env is the environment the run was given.
	Env Env

	// Output: how the run reports, which never fails to resolve.
	Output Output

	// Prompt is -p or Kimi's -c (trimmed); PromptGiven says one of them was given, even
	// empty.
	Prompt      string
	PromptGiven bool
	// Session is -S or Kimi's -r.
	Session string
	// StdinTimeout is --stdin-timeout, or CIStdinTimeout on CI when the flag is not given.
	StdinTimeout time.Duration
	// Ralph is the extra Ralph iterations: --ralph, Kimi's --max-ralph-iterations, or
	// loop_control.max_ralph_iterations (not for a flow, which brings its own graph).
	Ralph int
	// WorkDir is the absolute work dir.
	WorkDir string

	// Endpoint is where the model calls go and how they are sent.
	Endpoint Endpoint
	// Loop is the loop control of the agent.
	Loop Loop
	// Background is [background]: the limits of the background tasks and the print-mode
	// wait for them (Kimi CLI's defaults where the file says nothing).
	Background background.Config
	// Fallbacks are the models of --fallback-model (or fallback_models), in the order they
	// are tried once the run's model keeps failing transiently.
	Fallbacks []Fallback
	// Budget is the run's token and cost limits and the model's prices.
	Budget Budget
	// Replay is the cassette of --replay, nil without one.
	Replay *cassette.Cassette
	// Hooks are the config file's [[hooks]], checked.
	Hooks []hooks.Hook
	// Skills are the config file's skill discovery settings.
	Skills Skills
	// Services are Moonshot's web services the tools use (config/services.go).
	Services Services
	// Plugins are Kimi CLI's plugins found in the share dir's plugins/ (config/plugins.go).
	Plugins []plugin.Spec
	// MCP is the MCP servers to start and their timeouts.
	MCP MCP
	// Agent is the agent of --agent or --agent-file (the built-in default without them).
	Agent *agentspec.Spec
	// Secrets are every credential the run knows of, used or not (config/secrets.go).
	Secrets Secrets

	// Warnings are what the run says about its configuration once its event stream is
	// open, in the order found.
	Warnings []string
}

// Output is how the run reports.
type Output struct {
	// Format is --output-format: text, stream-json or json.
	Format string
	// LogLevel is --log-level, or what Kimi's --debug and --verbose mean.
	LogLevel string
	// Quiet keeps everything but what went wrong off stderr: -q, or a warn/error level.
	Quiet bool
}

// NDJSON reports whether stdout carries one JSON object per line (stream-json): kimi-run's
// events, or Kimi CLI's message lines with --print. stderr then has only plain lines.
func (o Output) NDJSON() bool { return o.Format == "stream-json" }

// Endpoint is the model's endpoint, credentials and request settings.
type Endpoint struct {
	// APIKey is the key from the environment or the config file; a stored login may
	// replace it when the run starts (Login).
	APIKey  string
	BaseURL string
	Model   string
	// Protocol is the provider's type ("kimi", "openai_legacy", ...; "" for an endpoint from
	// the environment): model/protocols picks the client by it.
	Protocol string
	// Capabilities are the model's (config entry, or KIMI_MODEL_CAPABILITIES): image_in
	// lets --image attach pictures.
	Capabilities []string
	// MaxContext is the context window; ContextKnown says the user set it.
	MaxContext   int
	ContextKnown bool
	// Thinking is Kimi's thinking switch; nil sends nothing.
	Thinking *bool
	// Headers are the provider's custom headers.
	Headers map[string]string
	// ReasoningKey is an openai_legacy provider's reasoning_key, nil when it sets none
	// (config/kimikeys.go): the message field reasoning is read from and sent back in;
	// "" turns the round trip off.
	ReasoningKey *string
	// Project and Location are Vertex AI's (config/google.go).
	Project, Location string
	// Generation holds the KIMI_MODEL_* sampling settings (config/modelenv.go).
	Generation Generation
	// Login is the stored `kimi login` of the provider, when it names one and no
	// KIMI_API_KEY overrides it; its token becomes the key when the run starts.
	Login *kimilogin.Source
	// KimiProvider says the endpoint is a Kimi one (a `kimi` provider, or the Kimi
	// environment): only then are requests sized with max_completion_tokens, as in Kimi CLI.
	KimiProvider bool
}

// Loop is the loop control of the agent.
type Loop struct {
	// MaxSteps bounds the model calls of one turn.
	MaxSteps int
	// Attempts is the total number of tries of one model call, the first included:
	// --max-retries N gives N+1; Kimi's --max-retries-per-step and max_retries_per_step
	// give their value as is.
	Attempts int
	// Reserve and TriggerRatio are loop_control's compaction settings (0: the agent's).
	Reserve      int
	TriggerRatio float64
}

// Skills are the config file's skill discovery settings.
type Skills struct {
	// ExtraDirs are extra_skill_dirs.
	ExtraDirs []string
	// MergeAll is merge_all_available_skills (default true): read all of .kimi, .claude
	// and .codex rather than the first that exists.
	MergeAll bool
}

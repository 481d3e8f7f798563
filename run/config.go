package run

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"time"

	"github.com/kimi-run/kimi-run/hooks"
	"github.com/kimi-run/kimi-run/kimilogin"
)

// Default endpoints. A key is only ever sent to the endpoint family it came from: a CI job
// that exports OPENAI_API_KEY for another tool must not have it sent to Moonshot.
const (
	defaultKimiBaseURL   = "https://api.moonshot.ai/v1"
	defaultOpenAIBaseURL = "https://api.openai.com/v1"
)

// config is the resolved configuration of a run.
type config struct {
	apiKey string
	// configKeys are every provider's api_key in the config file, the one used or not: all
	// are scrubbed and kept from commands (a key the environment overrides included).
	configKeys []string
	baseURL    string
	model      string
	workDir    string
	// capabilities are the model's (config entry, or KIMI_MODEL_CAPABILITIES): image_in
	// lets --image attach pictures.
	capabilities []string
	// maxContext is the context window; contextKnown says the user set it.
	maxContext   int
	contextKnown bool
	// thinking is Kimi's thinking switch; nil sends nothing.
	thinking *bool
	headers  map[string]string
	// Loop control, from flags or the config file. maxSteps bounds the model calls of one
	// turn. attempts is the total number of tries of one model call, the first included:
	// --max-retries N gives N+1; Kimi CLI's --max-retries-per-step and max_retries_per_step
	// give their value as is.
	maxSteps, attempts int
	reserve            int
	triggerRatio       float64
	// ralph is loop_control.max_ralph_iterations, nil when the file does not set it.
	ralph *int
	// gen holds the KIMI_MODEL_* generation settings (run/modelenv.go).
	gen generation
	// login is the stored `kimi login` of the provider, when it names one and no
	// KIMI_API_KEY overrides it; its token becomes apiKey when the run starts.
	login *kimilogin.Source
	// kimiProvider says the endpoint is a Kimi one (a `kimi` provider, or the Kimi
	// environment): only then are requests sized with max_completion_tokens, as in Kimi CLI.
	kimiProvider bool
	// warnings are what the run should say about the configuration once the run's event
	// stream is open.
	warnings []string
	// The user's hooks ([[hooks]]); an engine with none when there are none.
	hooks *hooks.Engine
	// Skill discovery settings from the file.
	extraSkillDirs []string
	mergeSkills    bool
	// mcpCallTimeout is [mcp.client] tool_call_timeout_ms; 0 when unset.
	mcpCallTimeout time.Duration
	// Budgets (run/budget.go).
	budget budgetConfig
}

func firstPositive(vals ...int) int {
	for _, v := range vals {
		if v > 0 {
			return v
		}
	}
	return 0
}

// Loop-control defaults: Kimi CLI's, as attempts per model call and steps per turn.
const (
	defaultMaxSteps = 1000
	defaultAttempts = 3
)

// defaultMaxContext is the window assumed when none is configured: compaction still keeps
// long runs alive, but no completion cap is derived from a guess.
const defaultMaxContext = 128_000

// usageError is a problem with the command line, the environment or the prompt: exit 2,
// before any model call. It keeps the error it wraps (a flow's parse error, a skill's).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef formats a usage error; %w wraps its cause.
func usagef(format string, a ...any) error { return &usageError{err: fmt.Errorf(format, a...)} }

// resolve applies flags > environment > defaults.
func resolve(cli *CLI, getenv func(string) string) (config, error) {
	var c config
	fc, err := loadConfig(cli, getenv)
	if err != nil {
		return c, err
	}
	for _, p := range fc.Providers {
		c.configKeys = append(c.configKeys, p.APIKey)
	}
	// --model picks a config entry (or names the model itself); without it the file's
	// default model is used, whose model id the environment may replace, as in Kimi CLI.
	name := firstSet(cli.Model, fc.DefaultModel)
	entry, prov, found, err := fc.model(name)
	if err != nil {
		return c, err
	}
	c.model = firstSet(cli.Model, getenv("KIMI_MODEL_NAME"), getenv("OPENAI_MODEL"), fc.DefaultModel)
	menv, err := readModelEnv(getenv)
	if err != nil {
		return c, err
	}
	c.warnings = menv.warnings
	kimiFamily := false // the KIMI_MODEL_* settings apply, as in Kimi CLI for a kimi provider
	if !found && name != "" && name == fc.DefaultModel && firstSet(cli.Model, getenv("KIMI_MODEL_NAME"), getenv("OPENAI_MODEL")) == "" {
		// Nothing a user configured is ignored silently: a typo here would run as a model id.
		c.warnings = append(c.warnings, fmt.Sprintf("config: default_model %q is not in [models]; sending it to the provider as the model id", name))
	}
	kimiKey, openaiKey := getenv("KIMI_API_KEY"), getenv("OPENAI_API_KEY")
	switch {
	case found:
		// A model from the config file: its provider's key and endpoint, which the
		// environment of the same family overrides, as in Kimi CLI.
		c.model = entry.Model
		c.headers = prov.CustomHeaders
		switch prov.Type {
		case "kimi", "":
			kimiFamily = true
			if cli.Model == "" {
				c.model = firstSet(getenv("KIMI_MODEL_NAME"), entry.Model)
			}
			if menv.capabilities != nil {
				entry.Capabilities = menv.capabilities
			}
			c.apiKey = firstSet(kimiKey, prov.APIKey)
			if kimiKey == "" {
				c.login = loginSource(prov, getenv)
			}
			c.baseURL = firstSet(cli.BaseURL, getenv("KIMI_BASE_URL"), prov.BaseURL, defaultKimiBaseURL)
			if cli.Thinking == nil && !alwaysThinking(c.model, entry.Capabilities) {
				on := fc.DefaultThinking != nil && *fc.DefaultThinking
				c.thinking = &on
			}
		case "openai_legacy", "openai_responses":
			if cli.Model == "" {
				c.model = firstSet(getenv("OPENAI_MODEL"), entry.Model)
			}
			c.apiKey = firstSet(openaiKey, prov.APIKey)
			c.baseURL = firstSet(cli.BaseURL, getenv("OPENAI_BASE_URL"), prov.BaseURL, defaultOpenAIBaseURL)
		default:
			return c, usagef("config: provider %q of model %q has type %q; kimi-run speaks only OpenAI-compatible chat completions (kimi, openai_legacy)", entry.Provider, name, prov.Type)
		}
		if entry.MaxContextSize > 0 {
			c.maxContext, c.contextKnown = entry.MaxContextSize, true
		}
		c.capabilities = entry.Capabilities
	case kimiKey != "":
		kimiFamily = true
		c.apiKey = kimiKey
		c.baseURL = firstSet(cli.BaseURL, getenv("KIMI_BASE_URL"), defaultKimiBaseURL)
	case openaiKey != "":
		c.apiKey = openaiKey
		c.baseURL = firstSet(cli.BaseURL, getenv("OPENAI_BASE_URL"), defaultOpenAIBaseURL)
	default:
		kimiFamily = getenv("KIMI_BASE_URL") != "" || getenv("OPENAI_BASE_URL") == ""
		c.baseURL = firstSet(cli.BaseURL, getenv("KIMI_BASE_URL"), getenv("OPENAI_BASE_URL"), defaultKimiBaseURL)
	}
	if kimiFamily {
		c.gen = menv.generation
	}
	if !found {
		c.capabilities = menv.capabilities
	}
	c.kimiProvider = kimiFamily
	if cli.Thinking != nil {
		c.thinking = cli.Thinking
	}

	if c.hooks, err = loadHooks(fc.Hooks); err != nil {
		return c, err
	}
	c.extraSkillDirs = fc.ExtraSkillDirs
	c.mergeSkills = fc.MergeAllAvailableSkills == nil || *fc.MergeAllAvailableSkills

	lc := fc.LoopControl
	if err := lc.validate(); err != nil {
		return c, err
	}
	c.maxSteps = firstPositive(deref(lc.MaxStepsPerTurn), deref(lc.MaxStepsPerRun), defaultMaxSteps)
	if cli.MaxSteps != nil {
		if *cli.MaxSteps < 1 {
			return c, usagef("--max-steps must be at least 1, got %d", *cli.MaxSteps)
		}
		c.maxSteps = *cli.MaxSteps
	}
	c.attempts = firstPositive(deref(lc.MaxRetriesPerStep), defaultAttempts)
	if cli.MaxRetries != nil {
		if *cli.MaxRetries < 0 {
			return c, usagef("--max-retries must be 0 (try once) or more, got %d", *cli.MaxRetries)
		}
		c.attempts = *cli.MaxRetries + 1
	}
	if cli.MaxRetriesPerStep > 0 {
		// Kimi's flag counts attempts in total, the first included.
		c.attempts = cli.MaxRetriesPerStep
	}
	c.ralph = lc.MaxRalphIterations
	c.reserve, c.triggerRatio = deref(lc.ReservedContextSize), deref(lc.CompactionTriggerRatio)
	c.mcpCallTimeout = time.Duration(max(fc.MCP.Client.ToolCallTimeoutMS, 0)) * time.Millisecond

	if !c.contextKnown {
		c.maxContext = defaultMaxContext
	}
	switch {
	case cli.MaxContextSize > 0:
		c.maxContext, c.contextKnown = cli.MaxContextSize, true
	case cli.MaxContextSize < 0:
		return c, usagef("--max-context-size must be positive")
	case getenv("KIMI_MODEL_MAX_CONTEXT_SIZE") != "":
		n, err := strconv.Atoi(getenv("KIMI_MODEL_MAX_CONTEXT_SIZE"))
		if err != nil || n <= 0 {
			return c, usagef("KIMI_MODEL_MAX_CONTEXT_SIZE must be a positive number of tokens")
		}
		c.maxContext, c.contextKnown = n, true
	}

	if c.budget, err = resolveBudget(cli, entry); err != nil {
		return c, err
	}

	u, err := url.Parse(c.baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, usagef("invalid base URL %q: want http(s)://host[:port]/path", redactURL(c.baseURL))
	}
	if c.apiKey == "" && c.login == nil && !isLoopback(u.Hostname()) && cli.Replay == "" {
		return c, usagef("no API key: set KIMI_API_KEY (or OPENAI_API_KEY) in the environment")
	}
	if c.model == "" {
		return c, usagef("no model: pass --model NAME or set KIMI_MODEL_NAME")
	}
	if cli.Timeout < 0 || cli.StreamIdleTimeout < 0 {
		return c, usagef("timeouts must not be negative")
	}

	dir := cli.WorkDir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return c, usagef("cannot find the current directory: %v", err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return c, usagef("work dir %s: %v", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return c, usagef("work dir %s is not a directory", dir)
	}
	c.workDir = abs
	return c, nil
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// isLoopback reports whether host is this machine: local servers often need no key.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redactURL drops user info and the query from a URL before it is shown anywhere.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}

package run

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Default endpoints. A key is only ever sent to the endpoint family it came from: a CI job
// that exports OPENAI_API_KEY for another tool must not have it sent to Moonshot.
const (
	defaultKimiBaseURL   = "https://api.moonshot.ai/v1"
	defaultOpenAIBaseURL = "https://api.openai.com/v1"
)

// config is the resolved configuration of a run.
type config struct {
	apiKey  string
	baseURL string
	model   string
	workDir string
	// maxContext is the context window; contextKnown says the user set it.
	maxContext   int
	contextKnown bool
	// thinking is Kimi's thinking switch; nil sends nothing.
	thinking *bool
	headers  map[string]string
	// Loop control, from flags or the config file.
	maxSteps, maxRetries int
	reserve              int
	triggerRatio         float64
}

func firstPositive(vals ...int) int {
	for _, v := range vals {
		if v > 0 {
			return v
		}
	}
	return 0
}

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
	name := firstSet(cli.Model, getenv("KIMI_MODEL_NAME"), getenv("OPENAI_MODEL"), fc.DefaultModel)
	entry, prov, found, err := fc.model(name)
	if err != nil {
		return c, err
	}
	c.model = name
	kimiKey, openaiKey := getenv("KIMI_API_KEY"), getenv("OPENAI_API_KEY")
	switch {
	case found:
		// A model from the config file: its provider's key and endpoint, which the
		// environment of the same family overrides, as in Kimi CLI.
		c.model = entry.Model
		c.headers = prov.CustomHeaders
		switch prov.Type {
		case "kimi", "":
			c.apiKey = firstSet(kimiKey, prov.APIKey)
			c.baseURL = firstSet(cli.BaseURL, getenv("KIMI_BASE_URL"), prov.BaseURL, defaultKimiBaseURL)
			if cli.Thinking == nil && !entry.has("always_thinking") {
				on := fc.DefaultThinking != nil && *fc.DefaultThinking
				c.thinking = &on
			}
		case "openai_legacy", "openai_responses":
			c.apiKey = firstSet(openaiKey, prov.APIKey)
			c.baseURL = firstSet(cli.BaseURL, getenv("OPENAI_BASE_URL"), prov.BaseURL, defaultOpenAIBaseURL)
		default:
			return c, usagef("config: provider %q of model %q has type %q; kimi-run speaks only OpenAI-compatible chat completions (kimi, openai_legacy)", entry.Provider, name, prov.Type)
		}
		if entry.MaxContextSize > 0 {
			c.maxContext, c.contextKnown = entry.MaxContextSize, true
		}
	case kimiKey != "":
		c.apiKey = kimiKey
		c.baseURL = firstSet(cli.BaseURL, getenv("KIMI_BASE_URL"), defaultKimiBaseURL)
	case openaiKey != "":
		c.apiKey = openaiKey
		c.baseURL = firstSet(cli.BaseURL, getenv("OPENAI_BASE_URL"), defaultOpenAIBaseURL)
	default:
		c.baseURL = firstSet(cli.BaseURL, getenv("KIMI_BASE_URL"), getenv("OPENAI_BASE_URL"), defaultKimiBaseURL)
	}
	if cli.Thinking != nil {
		c.thinking = cli.Thinking
	}

	lc := fc.LoopControl
	c.maxSteps = firstPositive(cli.MaxSteps, lc.MaxStepsPerTurn, lc.MaxStepsPerRun, 1000)
	c.maxRetries = firstPositive(cli.MaxRetries, lc.MaxRetriesPerStep, 3)
	c.reserve, c.triggerRatio = lc.ReservedContextSize, lc.CompactionTriggerRatio

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

	u, err := url.Parse(c.baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, usagef("invalid base URL %q: want http(s)://host[:port]/path", redactURL(c.baseURL))
	}
	if c.apiKey == "" && !isLoopback(u.Hostname()) && cli.Replay == "" {
		return c, usagef("no API key: set KIMI_API_KEY (or OPENAI_API_KEY) in the environment")
	}
	if c.model == "" {
		return c, usagef("no model: pass --model NAME or set KIMI_MODEL_NAME")
	}
	if cli.MaxSteps < 0 {
		return c, usagef("--max-steps must be at least 1")
	}
	if cli.MaxRetries < 0 {
		return c, usagef("--max-retries must be at least 1")
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

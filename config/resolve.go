package config

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/hooks"
	"github.com/kimi-run/kimi-run/model/protocols"
)

// Resolve reads the flags, the environment and the files into the run's Settings. It
// always returns what it resolved so far, so that a run stopped by a usage error still
// reports the way the flags ask and scrubs the keys it found; the first problem found is
// the error (a *UsageError for anything the user can fix). f is not changed. Reading the
// files it names stops with ctx's cause when ctx ends (a signal, --timeout).
func Resolve(ctx context.Context, f Flags, env Env) (*Settings, error) {
	s := &Settings{Flags: f, Env: env, Output: OutputOf(&f), Ralph: f.Ralph, Session: f.Session}
	s.envSecrets()
	s.Prompt, s.PromptGiven = f.Prompt, f.Given("prompt")
	if f.Command != nil {
		s.Prompt, s.PromptGiven = strings.TrimSpace(*f.Command), true
	}
	if f.Flow != "" && f.fromFile("ralph") {
		s.Ralph = 0 // the file's Ralph iterations are not for a flow, which brings its own graph
	}
	s.StdinTimeout = f.StdinTimeout
	if !f.Given("stdin-timeout") && onCI(env) {
		s.StdinTimeout = CIStdinTimeout
	}
	if err := f.Conflict(); err != nil {
		return s, err
	}
	if err := checkKimi(&f); err != nil {
		return s, err
	}
	if err := checkFlagValues(&f); err != nil {
		return s, err
	}
	if f.src != nil && len(f.src.problems) > 0 {
		return s, f.src.problems[0]
	}
	// A replay brings its endpoint and model, before the file and the environment.
	baseURL, model := f.BaseURL, f.Model
	replayURL, replayModel, replaying, err := s.loadReplay(ctx)
	if err != nil {
		return s, err
	}
	if replaying {
		baseURL, model = replayURL, firstSet(model, replayModel)
	}
	fc, err := f.configFile(env)
	if err != nil {
		return s, err
	}
	s.fileSecrets(fc)
	s.serviceSecrets(fc)
	if f.Config != "" {
		if w := inlineWarning(fc); w != "" {
			s.Warnings = append(s.Warnings, w)
		}
	}
	entry, err := s.resolveEndpoint(fc, baseURL, model)
	if err != nil {
		return s, err
	}
	_, _, mainFound, _ := fc.model(firstSet(model, fc.DefaultModel))
	if replaying && s.Replay.Header.Provider != "" {
		// The recorded requests speak the recorded protocol, whatever the file says now.
		s.Endpoint.Protocol = s.Replay.Header.Provider
	}
	s.resolveProviderKeys(fc, entry.Provider)
	s.Warnings = append(s.Warnings, kimiKeyWarnings(fc)...)
	s.Warnings = append(s.Warnings, envWarnings(s.Env)...)
	steps := []func() error{
		func() error { return s.resolveFileSettings(fc) },
		func() error { return s.resolveServices(fc) },
		func() error { s.resolvePlugins(ctx); return nil },
		func() error { return s.resolveLoop(fc.LoopControl) },
		func() error { return s.resolveBackground(fc.Background) },
		s.resolveContext,
		func() error { return s.resolveBudget(entry) },
		s.checkEndpoint,
		func() error { return s.resolveFallbacks(fc, entry, mainFound) },
		s.resolveWorkDir,
		func() error { return s.resolveMCP(ctx, fc) },
		func() error { s.mcpSecrets(); return nil },
		s.resolveAgent,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return s, err
		}
	}
	return s, nil
}

// OutputOf is how a run with these flags reports: --log-level, or Kimi's --debug (debug) and
// --verbose (info, the default). It never fails: a usage error is reported this way too.
func OutputOf(f *Flags) Output {
	o := Output{Format: f.OutputFormat, LogLevel: f.LogLevel}
	if !f.Given("log-level") {
		switch {
		case f.Debug:
			o.LogLevel = "debug"
		case f.Verbose:
			o.LogLevel = "info"
		}
	}
	// warn and error keep only what went wrong: no MCP servers' chatter either.
	o.Quiet = f.Quiet || o.LogLevel == "warn" || o.LogLevel == "error"
	return o
}

// resolveEndpoint picks the model, its endpoint and its key. --model picks a config entry
// (or names the model itself); without it the file's default model is used, whose model id
// the environment may replace, as in Kimi CLI. baseURL and model are the flags' (or the
// replayed cassette's). It returns the model's config entry (zero when there is none).
func (s *Settings) resolveEndpoint(fc *fileConfig, baseURL, model string) (modelConfig, error) {
	e, getenv := &s.Endpoint, s.Env.Getenv
	name := firstSet(model, fc.DefaultModel)
	entry, prov, found, err := fc.model(name)
	if err != nil {
		return entry, err
	}
	e.Model = firstSet(model, getenv("KIMI_MODEL_NAME"), getenv("OPENAI_MODEL"), fc.DefaultModel)
	menv, err := readModelEnv(s.Env)
	if err != nil {
		return entry, err
	}
	s.Warnings = append(s.Warnings, menv.warnings...)
	kimiFamily := false // the KIMI_MODEL_* settings apply, as in Kimi CLI for a kimi provider
	if !found && name != "" && name == fc.DefaultModel && firstSet(model, getenv("KIMI_MODEL_NAME"), getenv("OPENAI_MODEL")) == "" {
		// Nothing a user configured is ignored silently: a typo here would run as a model id.
		s.Warnings = append(s.Warnings, fmt.Sprintf("config: default_model %q is not in [models]; sending it to the provider as the model id", name))
	}
	kimiKey, openaiKey := getenv("KIMI_API_KEY"), getenv("OPENAI_API_KEY")
	switch {
	case found:
		if kimiFamily, err = s.fromEntry(fc, name, &entry, prov, baseURL, model, menv); err != nil {
			return entry, err
		}
	case kimiKey != "":
		kimiFamily = true
		e.APIKey = kimiKey
		e.BaseURL = firstSet(baseURL, getenv("KIMI_BASE_URL"), DefaultKimiBaseURL)
	case openaiKey != "":
		e.APIKey = openaiKey
		e.BaseURL = firstSet(baseURL, getenv("OPENAI_BASE_URL"), DefaultOpenAIBaseURL)
	default:
		kimiFamily = getenv("KIMI_BASE_URL") != "" || getenv("OPENAI_BASE_URL") == ""
		e.BaseURL = firstSet(baseURL, getenv("KIMI_BASE_URL"), getenv("OPENAI_BASE_URL"), DefaultKimiBaseURL)
	}
	if kimiFamily {
		e.Generation = menv.Generation
	}
	if !found {
		e.Capabilities = menv.capabilities
	}
	e.KimiProvider = kimiFamily
	if s.Flags.Thinking != nil {
		e.Thinking = s.Flags.Thinking
	}
	return entry, nil
}

// fromEntry takes the endpoint from a model of the config file: its provider's key and
// endpoint, which the environment of the same family overrides, as in Kimi CLI. It reports
// whether the provider is a Kimi one.
func (s *Settings) fromEntry(fc *fileConfig, name string, entry *modelConfig, prov providerConfig, baseURL, modelFlag string, menv modelEnv) (kimi bool, err error) {
	e, getenv := &s.Endpoint, s.Env.Getenv
	e.Model = entry.Model
	e.Headers = prov.CustomHeaders
	e.Protocol = prov.Type
	switch prov.Type {
	case "kimi", "":
		kimi = true
		if modelFlag == "" {
			e.Model = firstSet(getenv("KIMI_MODEL_NAME"), entry.Model)
		}
		if menv.capabilities != nil {
			entry.Capabilities = menv.capabilities
		}
		e.APIKey = firstSet(getenv("KIMI_API_KEY"), prov.APIKey)
		if getenv("KIMI_API_KEY") == "" {
			e.Login = loginSource(prov, s.Env)
		}
		e.BaseURL = firstSet(baseURL, getenv("KIMI_BASE_URL"), prov.BaseURL, DefaultKimiBaseURL)
		if s.Flags.Thinking == nil && !alwaysThinking(e.Model, entry.Capabilities) {
			on := fc.DefaultThinking != nil && *fc.DefaultThinking
			e.Thinking = &on
		}
	case "openai_legacy", "openai_responses":
		if modelFlag == "" {
			e.Model = firstSet(getenv("OPENAI_MODEL"), entry.Model)
		}
		e.APIKey = firstSet(getenv("OPENAI_API_KEY"), prov.APIKey)
		e.BaseURL = firstSet(baseURL, getenv("OPENAI_BASE_URL"), prov.BaseURL, DefaultOpenAIBaseURL)
		if prov.Type == "openai_responses" && s.Flags.Thinking == nil && responsesThinks(fc, e.Model, entry.Capabilities) {
			// As Kimi CLI asks a Responses model to think: one that always does, or one that
			// can when default_thinking says so. Otherwise nothing is asked (a model that
			// does not reason refuses a reasoning effort).
			on := true
			e.Thinking = &on
		}
	case "anthropic":
		s.fromAnthropic(fc, prov, entry, baseURL)
	case "gemini", "google_genai", "vertexai":
		if modelFlag == "" {
			e.Model = entry.Model
		}
		if err := s.fromGoogle(prov, name, entry.Provider, baseURL); err != nil {
			return false, err
		}
		if s.Flags.Thinking == nil {
			e.Thinking = googleThinking(fc, e.Model, entry.Capabilities)
		}
	default:
		// Any other protocol kimi-run speaks (model/protocols) takes the provider's own key and
		// endpoint: Kimi CLI overrides them from the environment for the two families above
		// only. A new protocol thus needs no change here.
		if _, ok := protocols.Lookup(prov.Type); !ok {
			return false, Usagef("config: provider %q of model %q has type %q, which kimi-run does not speak (it speaks %s)",
				entry.Provider, name, prov.Type, strings.Join(protocols.Types(), ", "))
		}
		if modelFlag == "" {
			e.Model = entry.Model
		}
		e.APIKey = prov.APIKey
		e.BaseURL = firstSet(baseURL, prov.BaseURL)
	}
	if entry.MaxContextSize > 0 {
		e.MaxContext, e.ContextKnown = entry.MaxContextSize, true
	}
	e.Capabilities = entry.Capabilities
	return kimi, nil
}

// resolveFileSettings checks the file's hooks and reads its skill settings.
func (s *Settings) resolveFileSettings(fc *fileConfig) error {
	var err error
	if s.Hooks, err = checkHooks(fc.Hooks); err != nil {
		return err
	}
	s.Skills = Skills{ExtraDirs: fc.ExtraSkillDirs, MergeAll: fc.MergeAllAvailableSkills == nil || *fc.MergeAllAvailableSkills}
	return nil
}

// checkHooks checks the [[hooks]] of the config file. A hook that cannot work is a usage
// error: a guard the user relies on must not silently stop guarding.
func checkHooks(cfgs []hookConfig) ([]hooks.Hook, error) {
	hs := make([]hooks.Hook, len(cfgs))
	for i, c := range cfgs {
		hs[i] = hooks.Hook{Event: c.Event, Command: c.Command, Matcher: c.Matcher}
		if c.Timeout != nil {
			if *c.Timeout < 1 {
				return nil, Usagef("config file: hooks[%d] (event %q): timeout must be 1 to 600 seconds", i, c.Event)
			}
			hs[i].Timeout = time.Duration(*c.Timeout) * time.Second
		}
	}
	if _, err := hooks.New(hs); err != nil {
		return nil, Usagef("config file: %w", err)
	}
	return hs, nil
}

// resolveLoop applies the flags over [loop_control] over the defaults.
func (s *Settings) resolveLoop(lc loopControl) error {
	f := &s.Flags
	if err := lc.validate(); err != nil {
		return err
	}
	l := &s.Loop
	if l.MaxSteps = f.MaxSteps; l.MaxSteps < 1 {
		return Usagef("%s must be at least 1, got %d", f.From("max-steps"), l.MaxSteps)
	}
	if s.Ralph < -1 {
		return Usagef("%s must be -1 (no limit), 0 (off) or a positive number of extra iterations", f.From("ralph"))
	}
	l.Attempts = firstPositive(deref(lc.MaxRetriesPerStep), DefaultAttempts)
	if f.MaxRetries != nil {
		if *f.MaxRetries < 0 {
			return Usagef("--max-retries must be 0 (try once) or more, got %d", *f.MaxRetries)
		}
		l.Attempts = *f.MaxRetries + 1
	}
	if f.MaxRetriesPerStep > 0 {
		// Kimi's flag counts attempts in total, the first included.
		l.Attempts = f.MaxRetriesPerStep
	}
	l.Reserve, l.TriggerRatio = deref(lc.ReservedContextSize), deref(lc.CompactionTriggerRatio)
	return nil
}

// resolveContext is the model's context window: the flag or its variable (declared), the
// model's config entry, the default. 0 on the command line means unset.
func (s *Settings) resolveContext() error {
	e, f := &s.Endpoint, &s.Flags
	if !e.ContextKnown {
		e.MaxContext = DefaultMaxContext
	}
	switch n := f.MaxContextSize; {
	case n > 0:
		e.MaxContext, e.ContextKnown = n, true
	case n < 0 || (f.Set("max-context-size") && !f.Given("max-context-size")):
		return Usagef("%s must be a positive number of tokens", f.From("max-context-size"))
	}
	return nil
}

// checkEndpoint refuses an endpoint the run cannot use: a URL that is not http(s), no key
// for a remote server, no model, negative timeouts.
func (s *Settings) checkEndpoint() error {
	e := &s.Endpoint
	u, err := url.Parse(e.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Usagef("invalid base URL %q: want http(s)://host[:port]/path", RedactURL(e.BaseURL))
	}
	// A custom Authorization header is a credential too (a gateway's, Vertex AI's token;
	// an anthropic provider's bearer token).
	if e.APIKey == "" && e.Login == nil && !hasHeader(e.Headers, "Authorization") && !isLoopback(u.Hostname()) && s.Flags.Replay == "" {
		if e.Protocol == "anthropic" {
			return Usagef("no API key: set api_key in the anthropic provider's entry, or ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in the environment")
		}
		if googleType(e.Protocol) {
			return Usagef("no API key: set the provider's api_key, or GOOGLE_API_KEY (or GEMINI_API_KEY) in the environment")
		}
		return Usagef("no API key: set KIMI_API_KEY (or OPENAI_API_KEY) in the environment")
	}
	if e.Model == "" {
		return Usagef("no model: pass --model NAME or set KIMI_MODEL_NAME")
	}
	if s.Flags.Timeout < 0 || s.Flags.StreamIdleTimeout < 0 {
		return Usagef("timeouts must not be negative")
	}
	return nil
}

// resolveWorkDir is --work-dir (default: the current directory), absolute; it must be a
// directory.
func (s *Settings) resolveWorkDir() error {
	dir := s.Flags.WorkDir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return Usagef("cannot find the current directory: %v", err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Usagef("work dir %s: %v", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return Usagef("work dir %s is not a directory", dir)
	}
	s.WorkDir = abs
	return nil
}

// onCI reports whether the CI variable says so, as GitHub Actions, GitLab CI, CircleCI,
// Travis, Buildkite and most others set it (CI=true; some use 1).
func onCI(env Env) bool {
	switch strings.ToLower(strings.TrimSpace(env.Getenv("CI"))) {
	case "true", "1", "yes":
		return true
	}
	return false
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func firstPositive(vals ...int) int {
	for _, v := range vals {
		if v > 0 {
			return v
		}
	}
	return 0
}

// isLoopback reports whether host is this machine: local servers often need no key.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// RedactURL drops user info and the query from a URL before it is shown anywhere.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}

// responsesThinks reports whether a Responses API model is asked to think without the
// flag: it always thinks, or it can (the thinking capability) and default_thinking is on.
func responsesThinks(fc *fileConfig, model string, capabilities []string) bool {
	return alwaysThinking(model, capabilities) ||
		(fc.DefaultThinking != nil && *fc.DefaultThinking && slices.Contains(capabilities, "thinking"))
}

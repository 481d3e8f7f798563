package config

import (
	"cmp"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/kimi-run/kimi-run/model/protocols"
)

// resolveEndpoint picks the model, its endpoint and its key. --model picks a config entry
// (or names the model itself); without it the file's default model is used, whose model id
// the environment may replace, as in Kimi CLI. baseURL and model are the flags' (or the
// replayed cassette's). It returns the model's config entry (zero when there is none).
func (s *Settings) resolveEndpoint(fc *fileConfig, baseURL, model string) (modelConfig, error) {
	e, getenv := &s.Endpoint, s.Env.Getenv
	name := cmp.Or(model, fc.DefaultModel)
	entry, prov, found, err := fc.model(name)
	if err != nil {
		return entry, err
	}
	e.Model = cmp.Or(model, getenv("KIMI_MODEL_NAME"), getenv("OPENAI_MODEL"), fc.DefaultModel)
	menv, err := readModelEnv(s.Env)
	if err != nil {
		return entry, err
	}
	s.Warnings = append(s.Warnings, menv.warnings...)
	kimiFamily := false // the KIMI_MODEL_* settings apply, as in Kimi CLI for a kimi provider
	if !found && name != "" && name == fc.DefaultModel && cmp.Or(model, getenv("KIMI_MODEL_NAME"), getenv("OPENAI_MODEL")) == "" {
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
		e.BaseURL = cmp.Or(baseURL, getenv("KIMI_BASE_URL"), DefaultKimiBaseURL)
	case openaiKey != "":
		e.APIKey = openaiKey
		e.BaseURL = cmp.Or(baseURL, getenv("OPENAI_BASE_URL"), DefaultOpenAIBaseURL)
	default:
		kimiFamily = getenv("KIMI_BASE_URL") != "" || getenv("OPENAI_BASE_URL") == ""
		e.BaseURL = cmp.Or(baseURL, getenv("KIMI_BASE_URL"), getenv("OPENAI_BASE_URL"), DefaultKimiBaseURL)
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
			e.Model = cmp.Or(getenv("KIMI_MODEL_NAME"), entry.Model)
		}
		if menv.capabilities != nil {
			entry.Capabilities = menv.capabilities
		}
		e.APIKey = cmp.Or(getenv("KIMI_API_KEY"), prov.APIKey)
		if getenv("KIMI_API_KEY") == "" {
			e.Login = loginSource(prov, s.Env)
		}
		e.BaseURL = cmp.Or(baseURL, getenv("KIMI_BASE_URL"), prov.BaseURL, DefaultKimiBaseURL)
		if s.Flags.Thinking == nil && !alwaysThinking(e.Model, entry.Capabilities) {
			on := fc.DefaultThinking != nil && *fc.DefaultThinking
			e.Thinking = &on
		}
	case "openai_legacy", "openai_responses":
		if modelFlag == "" {
			e.Model = cmp.Or(getenv("OPENAI_MODEL"), entry.Model)
		}
		e.APIKey = cmp.Or(getenv("OPENAI_API_KEY"), prov.APIKey)
		e.BaseURL = cmp.Or(baseURL, getenv("OPENAI_BASE_URL"), prov.BaseURL, DefaultOpenAIBaseURL)
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
		e.BaseURL = cmp.Or(baseURL, prov.BaseURL)
	}
	if entry.MaxContextSize > 0 {
		e.MaxContext, e.ContextKnown = entry.MaxContextSize, true
	}
	e.Capabilities = entry.Capabilities
	return kimi, nil
}

// responsesThinks reports whether a Responses API model is asked to think without the
// flag: it always thinks, or it can (the thinking capability) and default_thinking is on.
func responsesThinks(fc *fileConfig, model string, capabilities []string) bool {
	return alwaysThinking(model, capabilities) ||
		(fc.DefaultThinking != nil && *fc.DefaultThinking && slices.Contains(capabilities, "thinking"))
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
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || badPort(u) {
		return Usagef("invalid base URL %q (from %s): want http(s)://host[:port]/path, the port 1-65535", RedactURL(e.BaseURL), s.BaseURLFrom())
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

// firstSet is the first of vals that is not empty, or "" (cmp.Or, as the providers' files
// spell it).
func firstSet(vals ...string) string { return cmp.Or(vals...) }

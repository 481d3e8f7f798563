package config

import (
	"maps"
	"strings"
)

// DefaultAnthropicBaseURL is the Messages API's root, for an anthropic provider without a
// base_url (Kimi CLI requires one; the Anthropic SDKs default to it).
const DefaultAnthropicBaseURL = "https://api.anthropic.com"

// fromAnthropic takes the endpoint of a provider of type anthropic. Its key is the
// provider's api_key, sent as x-api-key; without one, ANTHROPIC_API_KEY, or else
// ANTHROPIC_AUTH_TOKEN as a bearer token, as Anthropic's SDKs (which Kimi CLI uses) read
// them. The environment never overrides a configured key: a developer's
// ANTHROPIC_API_KEY, set for Anthropic itself, must not be sent to another server that
// speaks the protocol (Moonshot's, a gateway's); the SDK under Kimi CLI sends
// ANTHROPIC_AUTH_TOKEN along with any key, kimi-run only in place of one. The base URL is
// --base-url, the provider's, ANTHROPIC_BASE_URL, then Anthropic's.
//
// The thinking switch: --thinking/--no-thinking; else on for a model that always thinks
// (its capabilities or its id say so, as Kimi CLI derives it); else default_thinking (off
// when unset, as in Kimi CLI, which then sends thinking {type: disabled}).
func (s *Settings) fromAnthropic(fc *fileConfig, prov providerConfig, entry *modelConfig, baseURL string) {
	e, getenv := &s.Endpoint, s.Env.Getenv
	e.BaseURL = firstSet(baseURL, prov.BaseURL, getenv("ANTHROPIC_BASE_URL"), DefaultAnthropicBaseURL)
	e.APIKey = firstSet(prov.APIKey, getenv("ANTHROPIC_API_KEY"))
	if tok := strings.TrimSpace(getenv("ANTHROPIC_AUTH_TOKEN")); e.APIKey == "" && tok != "" && !hasHeader(e.Headers, "Authorization") {
		e.Headers = maps.Clone(e.Headers)
		if e.Headers == nil {
			e.Headers = map[string]string{}
		}
		e.Headers["Authorization"] = "Bearer " + tok
	}
	if s.Flags.Thinking == nil {
		on := alwaysThinking(e.Model, entry.Capabilities) || (fc.DefaultThinking != nil && *fc.DefaultThinking)
		e.Thinking = &on
	}
}

// hasHeader reports whether headers set name, in any case.
func hasHeader(headers map[string]string, name string) bool {
	for k := range headers {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

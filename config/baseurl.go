package config

import (
	"net/url"
	"strconv"
	"strings"
)

// BaseURLFrom names where the endpoint's base URL came from, for an error that asks the
// user to fix it: the flag, the environment variable, the default, or the config file.
func (s *Settings) BaseURLFrom() string {
	e, getenv := &s.Endpoint, s.Env.Getenv
	if s.Flags.BaseURL != "" && s.Flags.BaseURL == e.BaseURL {
		return "--base-url"
	}
	for _, v := range []string{"KIMI_BASE_URL", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"} {
		if getenv(v) != "" && getenv(v) == e.BaseURL {
			return v
		}
	}
	switch e.BaseURL {
	case DefaultKimiBaseURL, DefaultOpenAIBaseURL, DefaultAnthropicBaseURL:
		return "the default"
	}
	return "the provider's base_url in the config file"
}

// badPort reports a base URL's port that no retry can reach: one left empty after its
// colon (Go would dial port 80) or one outside 1-65535.
func badPort(u *url.URL) bool {
	if strings.HasSuffix(u.Host, ":") {
		return true
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		return err != nil || n < 1 || n > 65535
	}
	return false
}

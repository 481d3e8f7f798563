package config

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// anthropicConfig is a config whose default model is served by an anthropic provider;
// provider holds the provider entry's lines after its type.
func anthropicConfig(model, provider, top string) string {
	return fmt.Sprintf("%sdefault_model = \"c\"\n[models.c]\nprovider = \"a\"\nmodel = %q\nmax_context_size = 200000\n[providers.a]\ntype = \"anthropic\"\n%s\n", top, model, provider)
}

// An anthropic provider's key, base URL and bearer token: the entry first, the
// ANTHROPIC_* variables only where the entry has nothing, never a key sent in place of
// the configured one.
func TestAnthropicEndpoint(t *testing.T) {
	tests := []struct {
		name     string
		provider string
		env      MapEnv
		args     []string
		key, url string
		auth     string
		err      string
	}{
		{name: "entry", provider: `base_url = "https://api.moonshot.ai/anthropic"` + "\n" + `api_key = "sk-entry"`,
			env: MapEnv{"ANTHROPIC_API_KEY": "sk-env", "ANTHROPIC_AUTH_TOKEN": "tok-env", "ANTHROPIC_BASE_URL": "https://env.example"},
			key: "sk-entry", url: "https://api.moonshot.ai/anthropic"},
		{name: "environment", env: MapEnv{"ANTHROPIC_API_KEY": "sk-env", "ANTHROPIC_BASE_URL": "https://env.example"},
			key: "sk-env", url: "https://env.example"},
		{name: "bearer token", env: MapEnv{"ANTHROPIC_AUTH_TOKEN": "tok-env"}, url: DefaultAnthropicBaseURL, auth: "Bearer tok-env"},
		{name: "gateway header wins over the token", provider: `custom_headers = { authorization = "Bearer gw" }`,
			env: MapEnv{"ANTHROPIC_AUTH_TOKEN": "tok-env"}, url: DefaultAnthropicBaseURL},
		{name: "flag", provider: `api_key = "sk-entry"`, args: []string{"--base-url", "http://127.0.0.1:9/x"}, key: "sk-entry", url: "http://127.0.0.1:9/x"},
		{name: "kimi's variables are not this provider's", env: MapEnv{"KIMI_API_KEY": "sk-kimi", "OPENAI_API_KEY": "sk-openai"}, err: "ANTHROPIC_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := MapEnv{"KIMI_SHARE_DIR": shareDir(t, anthropicConfig("claude-sonnet-4-5", tt.provider, ""))}
			for k, v := range tt.env {
				env[k] = v
			}
			s, err := Resolve(context.Background(), parse(t, env, append(tt.args, "-p", "x")...), env)
			if tt.err != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want a usage error naming %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			e := s.Endpoint
			if e.Protocol != "anthropic" || e.APIKey != tt.key || e.BaseURL != tt.url || e.Model != "claude-sonnet-4-5" {
				t.Errorf("endpoint = %+v", e)
			}
			if got := e.Headers["Authorization"]; got != tt.auth {
				t.Errorf("Authorization = %q, want %q", got, tt.auth)
			}
			for _, v := range tt.env {
				if strings.HasPrefix(v, "sk-") || strings.HasPrefix(v, "tok-") {
					if !containsString(s.Secrets.Own, v) {
						t.Errorf("%q is not among the run's secrets", v)
					}
				}
			}
		})
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// The thinking switch of an anthropic model, as Kimi CLI sets it: the flag, then a model
// that always thinks, then default_thinking (off when unset).
func TestAnthropicThinkingSwitch(t *testing.T) {
	tests := []struct {
		name, model, top, caps string
		args                   []string
		want                   bool
	}{
		{name: "unset", model: "claude-sonnet-4-5", want: false},
		{name: "default_thinking", model: "claude-sonnet-4-5", top: "default_thinking = true\n", want: true},
		{name: "flag beats the file", model: "claude-sonnet-4-5", top: "default_thinking = true\n", args: []string{"--no-thinking"}, want: false},
		{name: "always thinking by capability", model: "claude-opus-4-1", caps: `capabilities = ["always_thinking"]`, want: true},
		{name: "always thinking by name", model: "claude-3-7-sonnet-thinking", want: true},
		{name: "flag on", model: "claude-sonnet-4-5", args: []string{"--thinking"}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := anthropicConfig(tt.model, `api_key = "sk"`, tt.top)
			if tt.caps != "" {
				text = strings.Replace(text, "max_context_size = 200000\n", "max_context_size = 200000\n"+tt.caps+"\n", 1)
			}
			env := MapEnv{"KIMI_SHARE_DIR": shareDir(t, text)}
			s, err := Resolve(context.Background(), parse(t, env, append(tt.args, "-p", "x")...), env)
			if err != nil {
				t.Fatal(err)
			}
			if th := s.Endpoint.Thinking; th == nil || *th != tt.want {
				t.Errorf("thinking = %v, want %v", th, tt.want)
			}
		})
	}
}

package config

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// Kimi CLI's google providers resolve as its google-genai client finds its settings: the
// file's key, else GOOGLE_API_KEY, else GEMINI_API_KEY; Google's endpoint when base_url is
// missing; Vertex AI's project and location from the provider's env table, else the
// environment; and a Vertex AI provider with no way to authenticate is refused up front.
func TestGoogleProviders(t *testing.T) {
	const entry = "default_model = \"m\"\n[models.m]\nprovider = \"g\"\nmodel = \"gemini-2.5-pro\"\n[providers.g]\n"
	for _, tt := range []struct {
		name     string
		provider string
		env      MapEnv
		key      string
		base     string
		project  string
		location string
		usage    string
	}{
		{name: "gemini, key in the file", provider: "type = \"gemini\"\napi_key = \"file-key\"\n",
			env: MapEnv{"GOOGLE_API_KEY": "env-key"}, key: "file-key", base: "https://generativelanguage.googleapis.com"},
		{name: "google_genai, GOOGLE_API_KEY over GEMINI_API_KEY", provider: "type = \"google_genai\"\nbase_url = \"https://gw.example/gemini\"\n",
			env: MapEnv{"GOOGLE_API_KEY": "google-key", "GEMINI_API_KEY": "gemini-key"}, key: "google-key", base: "https://gw.example/gemini"},
		{name: "gemini, GEMINI_API_KEY", provider: "type = \"gemini\"\n",
			env: MapEnv{"GEMINI_API_KEY": "gemini-key"}, key: "gemini-key", base: "https://generativelanguage.googleapis.com"},
		{name: "vertexai express", provider: "type = \"vertexai\"\napi_key = \"vx-key\"\n",
			key: "vx-key", base: "https://aiplatform.googleapis.com"},
		{name: "vertexai project from the provider's env", provider: "type = \"vertexai\"\nenv = { GOOGLE_CLOUD_PROJECT = \"proj\", GOOGLE_CLOUD_LOCATION = \"us-east5\" }\ncustom_headers = { Authorization = \"Bearer ya29.token\" }\n",
			env: MapEnv{"GOOGLE_CLOUD_PROJECT": "other"}, base: "https://us-east5-aiplatform.googleapis.com", project: "proj", location: "us-east5"},
		{name: "vertexai project from the environment", provider: "type = \"vertexai\"\nbase_url = \"https://aiplatform.googleapis.com\"\ncustom_headers = { authorization = \"Bearer ya29.token\" }\n",
			env: MapEnv{"GOOGLE_CLOUD_PROJECT": "proj"}, base: "https://aiplatform.googleapis.com", project: "proj"},
		{name: "gemini without a key", provider: "type = \"gemini\"\n", usage: "GOOGLE_API_KEY (or GEMINI_API_KEY)"},
		{name: "vertexai without a key or a token", provider: "type = \"vertexai\"\nenv = { GOOGLE_CLOUD_PROJECT = \"proj\" }\n",
			usage: "Application Default Credentials"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := MapEnv{"KIMI_SHARE_DIR": shareDir(t, entry+tt.provider)}
			for k, v := range tt.env {
				env[k] = v
			}
			s, err := Resolve(context.Background(), parse(t, env, "-p", "x"), env)
			if tt.usage != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.usage) {
					t.Fatalf("err = %v, want a usage error about %s", err, tt.usage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			e := s.Endpoint
			if e.APIKey != tt.key || e.BaseURL != tt.base || e.Project != tt.project || e.Location != tt.location || e.Model != "gemini-2.5-pro" {
				t.Errorf("endpoint = %+v", e)
			}
		})
	}
}

// A key in the provider's env table is a secret like any other key of the file.
func TestGoogleEnvKeyIsSecret(t *testing.T) {
	text := "default_model = \"m\"\n[models.m]\nprovider = \"g\"\nmodel = \"gemini-2.5-pro\"\n[providers.g]\ntype = \"vertexai\"\nenv = { GOOGLE_API_KEY = \"AIzaSy-env-table\", GOOGLE_CLOUD_LOCATION = \"global\" }\n"
	env := MapEnv{"KIMI_SHARE_DIR": shareDir(t, text)}
	s, err := Resolve(context.Background(), parse(t, env, "-p", "x"), env)
	if err != nil {
		t.Fatal(err)
	}
	if s.Endpoint.APIKey != "AIzaSy-env-table" || !slices.Contains(s.Secrets.Own, "AIzaSy-env-table") || slices.Contains(s.Secrets.Own, "global") {
		t.Fatalf("key %q, secrets %q", s.Endpoint.APIKey, s.Secrets.Own)
	}
}

// Thinking, as Kimi CLI switches it for a Gemini model: on for a model that always
// thinks, default_thinking for one with the thinking capability, the flag over both.
func TestGoogleThinking(t *testing.T) {
	for _, tt := range []struct {
		name, file string
		args       []string
		want       string
	}{
		{"unset", "", nil, "<nil>"},
		{"capability and default_thinking", "default_thinking = true\n", nil, "true"},
		{"default_thinking off", "default_thinking = false\n", nil, "false"},
		{"the flag wins", "default_thinking = true\n", []string{"--no-thinking"}, "false"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := tt.file + "default_model = \"m\"\n[models.m]\nprovider = \"g\"\nmodel = \"gemini-2.5-flash\"\ncapabilities = [\"thinking\"]\n[providers.g]\ntype = \"gemini\"\napi_key = \"k\"\n"
			env := MapEnv{"KIMI_SHARE_DIR": shareDir(t, text)}
			s, err := Resolve(context.Background(), parse(t, env, append([]string{"-p", "x"}, tt.args...)...), env)
			if err != nil {
				t.Fatal(err)
			}
			got := "<nil>"
			if s.Endpoint.Thinking != nil {
				got = map[bool]string{true: "true", false: "false"}[*s.Endpoint.Thinking]
			}
			if got != tt.want {
				t.Errorf("thinking %s, want %s", got, tt.want)
			}
		})
	}
}

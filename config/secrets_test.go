package config

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSecretsAreEveryKnownCredential checks that a run knows every credential it could
// meet, used or not (issue 26 #2): every provider's key and custom header values, the
// environment's keys, every stored login, the MCP servers' and the OTLP exporter's.
func TestSecretsAreEveryKnownCredential(t *testing.T) {
	share := t.TempDir()
	os.MkdirAll(filepath.Join(share, "credentials"), 0o700)
	os.WriteFile(filepath.Join(share, "credentials", "kimi-code.json"), []byte(`{"access_token":"login-access","refresh_token":"login-refresh"}`), 0o600)
	os.WriteFile(filepath.Join(share, "credentials", "old.json"), []byte(`{"access_token":"","refresh_token":"old-refresh"}`), 0o600)
	os.WriteFile(filepath.Join(share, "credentials", "notes.txt"), []byte(`{"access_token":"not-a-login"}`), 0o600)
	os.WriteFile(filepath.Join(share, "credentials", "broken.json"), []byte(`{`), 0o600)
	cfg := `
default_model = "m"
[models.m]
provider = "a"
model = "x"
[providers.a]
type = "kimi"
api_key = "key-a"
custom_headers = { X-Gateway-Key = "gw-value", User-Agent = "agent-plain", Authorization = "Bearer hdr-token" }
[providers.b]
type = "openai_legacy"
api_key = "key-b"
`
	mcp := `{"mcpServers": {
		"web": {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${MCP_TOKEN}", "Accept": "application/json"}},
		"gh": {"command": "true", "env": {"GITHUB_TOKEN": "gh-env-token", "LOG_LEVEL": "debug-level"}}}}`
	env := MapEnv{
		"KIMI_SHARE_DIR": share, "KIMI_API_KEY": "env-kimi", "OPENAI_API_KEY": "env-openai", "MCP_TOKEN": "mcp-token",
		"OTEL_EXPORTER_OTLP_HEADERS": "x-honeycomb-team=otlp%20key,content-type=plain",
	}
	s, err := Resolve(context.Background(), parse(t, env, "--config", cfg, "--mcp-config", mcp, "-p", "x"), env)
	if err != nil {
		t.Fatal(err)
	}
	wantOwn := []string{"env-kimi", "env-openai", "login-access", "login-refresh", "old-refresh",
		"key-a", "gw-value", "Bearer hdr-token", "hdr-token", "key-b"}
	wantOthers := []string{"otlp key", "Bearer mcp-token", "mcp-token", "gh-env-token"}
	for _, w := range wantOwn {
		if !slices.Contains(s.Secrets.Own, w) {
			t.Errorf("own secrets lack %q: %q", w, s.Secrets.Own)
		}
	}
	for _, w := range wantOthers {
		if !slices.Contains(s.Secrets.Others, w) {
			t.Errorf("other secrets lack %q: %q", w, s.Secrets.Others)
		}
	}
	for _, plain := range []string{"agent-plain", "application/json", "debug-level", "plain", "not-a-login"} {
		if slices.Contains(s.Secrets.Own, plain) || slices.Contains(s.Secrets.Others, plain) {
			t.Errorf("%q is taken for a secret", plain)
		}
	}
	// The keys were given on the command line, where any process can read them.
	if len(s.Warnings) == 0 || !strings.Contains(strings.Join(s.Warnings, "\n"), "--config holds a credential (providers.a.api_key, providers.a.custom_headers.Authorization, providers.a.custom_headers.X-Gateway-Key, providers.b.api_key)") {
		t.Errorf("no warning about the inline keys: %q", s.Warnings)
	}
}

// An inline config without a credential draws no warning.
func TestInlineConfigWithoutKeysDoesNotWarn(t *testing.T) {
	env := MapEnv{"KIMI_API_KEY": "k"}
	s, err := Resolve(context.Background(), parse(t, env, "--config", `default_model = "m"
[models.m]
provider = "a"
model = "x"
[providers.a]
type = "kimi"
custom_headers = { X-Title = "ci" }`, "-p", "x"), env)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range s.Warnings {
		if strings.Contains(w, "--config holds") {
			t.Errorf("unexpected warning %q", w)
		}
	}
}

package config

import (
	"strings"
	"testing"
)

func TestExpandVars(t *testing.T) {
	env := MapEnv{"TOKEN": "abc", "EMPTY": ""}
	tests := []struct{ in, want, missing string }{
		{"Bearer ${TOKEN}", "Bearer abc", ""},
		{"${TOKEN}-${TOKEN}", "abc-abc", ""},
		{"${NOPE}", "", "NOPE"},
		{"${EMPTY:-fallback}", "fallback", ""},
		{"${NOPE:-}", "", ""},
		{"$TOKEN and $ and ${not valid}", "$TOKEN and $ and ${not valid}", ""},
	}
	for _, tt := range tests {
		var missing []string
		got := expandVars(tt.in, env, func(v string) { missing = append(missing, v) })
		if got != tt.want || strings.Join(missing, ",") != tt.missing {
			t.Errorf("expandVars(%q) = %q (missing %q), want %q (missing %q)", tt.in, got, missing, tt.want, tt.missing)
		}
	}
}

func TestServerEnvHoldsOnlyItsOwnEntries(t *testing.T) {
	// A key the user put in the server's own env is kept, expanded; the run sets these on
	// top of the children's environment (OverlayEnv).
	e := mcpEntry{Command: "srv", Env: map[string]string{"KIMI_API_KEY": "${MY_KEY}"}}
	s, _ := e.server("x", "/work", MapEnv{"MY_KEY": "sk-mine"})
	if strings.Join(s.Env, " ") != "KIMI_API_KEY=sk-mine" {
		t.Errorf("environment = %q", s.Env)
	}
	got := OverlayEnv([]string{"PATH=/bin", "KIMI_API_KEY=old", "HOME=/h"}, s.Env)
	if strings.Join(got, " ") != "PATH=/bin HOME=/h KIMI_API_KEY=sk-mine" {
		t.Errorf("overlaid = %q", got)
	}
}

func TestMCPTransport(t *testing.T) {
	tests := []struct {
		entry mcpEntry
		want  string
	}{
		{mcpEntry{Command: "x"}, "stdio"},
		{mcpEntry{Command: "x", Type: "stdio"}, "stdio"},
		{mcpEntry{URL: "https://h/mcp"}, "http"},
		{mcpEntry{URL: "https://h/mcp", Transport: "streamable-http"}, "http"},
		{mcpEntry{URL: "https://h/sse"}, "sse"},
		{mcpEntry{URL: "https://h/sse/", Type: "http"}, "http"},
		{mcpEntry{URL: "https://h/x", Transport: "SSE"}, "sse"},
		{mcpEntry{URL: "ftp://h/x"}, "error"},
		{mcpEntry{URL: "https://h/x", Transport: "stdio"}, "error"},
		{mcpEntry{Command: "x", Transport: "http"}, "error"},
	}
	for _, tt := range tests {
		got, err := tt.entry.transport()
		if err != nil {
			got = "error"
		}
		if string(got) != tt.want {
			t.Errorf("%+v: transport %q (%v), want %s", tt.entry, got, err, tt.want)
		}
	}
}

func TestParseMCPConfigWarnsAboutUnknownKeys(t *testing.T) {
	got, warnings, err := parseMCPConfig([]byte(`{"mcpServers": {"a": {"command": "x", "timeout": 5, "auth": "oauth"}}}`))
	if err != nil || len(got) != 1 {
		t.Fatalf("got %v, %v", got, err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "auth, timeout") {
		t.Errorf("warnings = %q", warnings)
	}
}

// TestTrustedServers: [sandbox] trusted_mcp_servers is a list of names; anything else
// trusts nobody, with a warning, and the key is no typo.
func TestTrustedServers(t *testing.T) {
	for _, tt := range []struct{ text, want, warn string }{
		{text: "[sandbox]\ntrusted_mcp_servers = [\"github\", \"fs\"]", want: "github fs"},
		{text: "[sandbox]\ntrusted_mcp_servers = \"github\"", warn: "must be a list"},
		{text: "[sandbox]\ntrusted_mcp_servers = [\"github\", 1]", warn: "must be a list"},
		{text: "default_model = \"m\""},
	} {
		fc, err := decodeTOML(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		var warnings []string
		got := trustedServers(fc, &warnings)
		if strings.Join(got, " ") != tt.want || !strings.Contains(strings.Join(warnings, "\n"), tt.warn) || (tt.warn == "") != (len(warnings) == 0) {
			t.Errorf("%q: %q, warnings %q", tt.text, got, warnings)
		}
		if w := kimiKeyWarnings(fc); len(w) > 0 {
			t.Errorf("%q: key warnings %q", tt.text, w)
		}
	}
}

package run

import (
	"strings"
	"testing"
)

func TestExitHookRunsBeforeTheExit(t *testing.T) {
	t.Parallel()
	var h exitHook
	var order []string
	exit := h.wrap(func(code int) { order = append(order, "exit") })
	exit(143) // no hook yet
	h.set(func() { order = append(order, "kill") })
	exit(143)
	if got := strings.Join(order, " "); got != "exit kill exit" {
		t.Errorf("order = %q", got)
	}
}

func TestExpandVars(t *testing.T) {
	t.Parallel()
	env := map[string]string{"TOKEN": "abc", "EMPTY": ""}
	getenv := func(k string) string { return env[k] }
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
		got := expandVars(tt.in, getenv, func(v string) { missing = append(missing, v) })
		if got != tt.want || strings.Join(missing, ",") != tt.missing {
			t.Errorf("expandVars(%q) = %q (missing %q), want %q (missing %q)", tt.in, got, missing, tt.want, tt.missing)
		}
	}
}

func TestServerEnvironDropsTheKeys(t *testing.T) {
	t.Parallel()
	got := childEnviron([]string{"PATH=/bin", "KIMI_API_KEY=sk-1", "OPENAI_API_KEY=sk-2", "KIMI_MODEL_NAME=m"}, &secretSet{}, nil)
	if strings.Join(got, " ") != "PATH=/bin KIMI_MODEL_NAME=m" {
		t.Errorf("environment = %q", got)
	}
	// A key the user put in the server's own env is kept.
	e := mcpEntry{Command: "srv", Env: map[string]string{"KIMI_API_KEY": "${MY_KEY}"}}
	s, _ := e.server("x", "/work", got, func(k string) string { return map[string]string{"MY_KEY": "sk-mine"}[k] })
	if s.Env[len(s.Env)-1] != "KIMI_API_KEY=sk-mine" {
		t.Errorf("environment = %q", s.Env)
	}
}

func TestMCPTransport(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	got, warnings, err := parseMCPConfig([]byte(`{"mcpServers": {"a": {"command": "x", "timeout": 5, "auth": "oauth"}}}`))
	if err != nil || len(got) != 1 {
		t.Fatalf("got %v, %v", got, err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "auth, timeout") {
		t.Errorf("warnings = %q", warnings)
	}
}

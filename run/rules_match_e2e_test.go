package run_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestToolRulesMCPNaming: Claude Code's mcp__SERVER__TOOL spelling, the README's own
// example, names the server's tools; a rule that matches no tool is a usage error naming
// the real tools, not a run with no tools that exits 0 (issue 21 #7).
func TestToolRulesMCPNaming(t *testing.T) {
	t.Parallel()
	cfg := mcpConfigFile(t, map[string]any{"memory": stdioServer(t, "memory")})
	tests := []struct {
		name       string
		rules      []string
		code       int
		offered    []string // among the offered tools
		notOffered []string
		stderr     []string
	}{
		{name: "allow a server's tools by glob", rules: []string{"--allowed-tools", "mcp__memory__*"}, code: 0,
			offered: []string{"echo", "add", "read_text"}, notOffered: []string{"Shell", "ReadFile"}},
		{name: "allow one tool and Shell", rules: []string{"--allowed-tools", "mcp__memory__echo,Shell"}, code: 0,
			offered: []string{"echo", "Shell"}, notOffered: []string{"add", "ReadFile"}},
		{name: "deny one", rules: []string{"--disallowed-tools", "mcp__memory__add"}, code: 0,
			offered: []string{"echo", "Shell"}, notOffered: []string{"add"}},
		{name: "offer exactly", rules: []string{"--tools", "mcp__memory__echo,ReadFile"}, code: 0,
			offered: []string{"echo", "ReadFile"}, notOffered: []string{"add", "Shell"}},
		{name: "another server", rules: []string{"--allowed-tools", "mcp__github__*"}, code: 2,
			stderr: []string{"no tool of this run matches mcp__github__*", "the tools are", "echo", "Shell", "mcp__SERVER__TOOL"}},
		{name: "a glob on nothing", rules: []string{"--disallowed-tools", "Web*"}, code: 2,
			stderr: []string{"no tool of this run matches Web*", "FetchURL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			r := kimi(t, srv, invocation{args: append([]string{"--mcp-config-file", cfg, "-p", "x"}, tt.rules...)})
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if tt.code != 0 {
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("%d model calls", n)
				}
				return
			}
			got := offeredTools(t, srv, 0)
			for _, n := range tt.offered {
				if !slices.Contains(got, n) {
					t.Errorf("%s not offered: %v", n, got)
				}
			}
			for _, n := range tt.notOffered {
				if slices.Contains(got, n) {
					t.Errorf("%s offered: %v", n, got)
				}
			}
		})
	}
}

// TestMCPTextAndStructuredContentOnce: a result with a text part and structuredContent in
// another shape (server-filesystem's read_text_file) reaches the model once (issue 21 #7).
func TestMCPTextAndStructuredContentOnce(t *testing.T) {
	t.Parallel()
	cfg := mcpConfigFile(t, map[string]any{"fs": stdioServer(t, "fs")})
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("c1", "read_text", `{}`)),
		scripted.Text("Read it."),
	)
	r := kimi(t, srv, invocation{args: []string{"--mcp-config-file", cfg, "-p", "read"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := toolResults(srv.Requests()[1])["c1"]; got != "line one\nline two\n" {
		t.Errorf("the model got %q, want the text once", got)
	}
}

// TestBadToolRuleLeavesNoSession: a run refused for its tool rules makes no session
// directory (issue 21 #8).
func TestBadToolRuleLeavesNoSession(t *testing.T) {
	t.Parallel()
	sessions := t.TempDir()
	r := kimi(t, nil, invocation{args: []string{"--session-dir", sessions, "--tools", "Shel", "-p", "x"}})
	if r.code != 2 || !strings.Contains(r.stderr, "Shel") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(sessions); len(entries) != 0 {
		t.Errorf("left in the session dir: %v", entries)
	}
}

// TestBadMCPToolRuleLeavesNoSession: with MCP servers the rules can only be checked once
// their tools are listed, after the session was made; the new session is removed again.
func TestBadMCPToolRuleLeavesNoSession(t *testing.T) {
	t.Parallel()
	cfg := mcpConfigFile(t, map[string]any{"memory": stdioServer(t, "memory")})
	sessions := t.TempDir()
	r := kimi(t, nil, invocation{args: []string{"--session-dir", sessions, "--mcp-config-file", cfg, "--allowed-tools", "mcp__github__*", "-p", "x"}})
	if r.code != 2 || !strings.Contains(r.stderr, "mcp__github__*") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(sessions); len(entries) != 0 {
		t.Errorf("left in the session dir: %v", entries)
	}
}

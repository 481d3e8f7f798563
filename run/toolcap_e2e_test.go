package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// --max-tool-calls (issue 32 #5): the call past the cap is not run and the run ends like
// the other budgets, resumably.
func TestToolCallCapEndsTheRunResumably(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo one > one.txt"}`), scripted.Call("ReadFile", `{"path":"one.txt"}`)),
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo three > three.txt"}`)),
		scripted.Text("resumed and done"),
	)
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--output-format", "stream-json",
		"--session", "capped", "--max-tool-calls", "2", "-p", "write files")})
	if r.code != 6 {
		t.Fatalf("exit = %d, want 6\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	res := lastResult(t, r)
	e, _ := res["error"].(map[string]any)
	if res["terminal_reason"] != "budget" || e["kind"] != "budget" || e["retryable"] != false {
		t.Errorf("result = %v", res)
	}
	if msg, _ := e["message"].(string); msg != "tool-call budget used up: 2 of 2 tool calls made, and the model asked for 1 more" {
		t.Errorf("error message = %q", msg)
	}
	if _, err := os.Stat(filepath.Join(work, "three.txt")); err == nil {
		t.Errorf("the call past the cap ran")
	}
	by, _ := res["tool_calls_by_tool"].(map[string]any)
	if res["tool_calls"] != 3.0 || len(by) != 2 || by["Shell"] != 2.0 || by["ReadFile"] != 1.0 {
		t.Errorf("tool_calls %v, tool_calls_by_tool %v; want 3: Shell 2, ReadFile 1", res["tool_calls"], res["tool_calls_by_tool"])
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("server got %d requests, want 2", n)
	}
	// Resumed with a bigger cap, the model reads that its call did not run.
	r = kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--session", "capped", "--max-tool-calls", "10", "-p", "go on")})
	if r.code != 0 || r.stdout != "resumed and done\n" {
		t.Fatalf("resumed run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := strings.Join(contents(srv, 2), "\n"); !strings.Contains(got, "not run: this run may make at most 2 tool calls (--max-tool-calls)") {
		t.Errorf("resumed request lacks the refusal:\n%s", got)
	}
}

func TestToolCallCapCoversSubagents(t *testing.T) {
	t.Parallel()
	// The Agent call is one call, the subagent's Shell another: its second Shell call is
	// past a cap of 2, which ends the subagent and then the parent.
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.Call("Agent", `{"description":"look","prompt":"count the files","subagent_type":"coder"}`)),
				scripted.ToolCalls(scripted.Call("Shell", `{"command":"ls"}`)),
				scripted.ToolCalls(scripted.Call("Shell", `{"command":"ls -a"}`)),
				scripted.Text("never sent"),
			)
			r := kimi(t, srv, invocation{args: []string{"--output-format", format, "--max-tool-calls", "2", "-p", "delegate"}})
			if r.code != 6 {
				t.Fatalf("exit = %d, want 6\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if n := len(srv.Requests()); n != 3 {
				t.Errorf("server got %d requests, want 3", n)
			}
			if format == "text" {
				if !strings.Contains(r.stderr, "the token, cost or tool-call budget ran out") || !strings.Contains(r.stderr, "tool-call budget used up: 2 of 2") {
					t.Errorf("stderr does not say why:\n%s", r.stderr)
				}
				return
			}
			res := lastResult(t, r)
			by, _ := res["tool_calls_by_tool"].(map[string]any)
			if res["terminal_reason"] != "budget" || by["Agent"] != 1.0 || by["Shell"] != 2.0 {
				t.Errorf("result = %v", res)
			}
		})
	}
}

func TestToolCallCapSources(t *testing.T) {
	t.Parallel()
	// The config key sets the cap; a negative one is a usage error naming its source.
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte("[loop_control]\nmax_tool_calls = 1\n"), 0o644)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"true"}`), scripted.Call("Shell", `{"command":"false"}`)),
		scripted.Text("never sent"),
	)
	r := kimi(t, srv, invocation{args: []string{"--config-file", cfg, "-p", "run two"}})
	if r.code != 6 {
		t.Errorf("config key: exit %d, want 6\n%s", r.code, r.stderr)
	}
	os.WriteFile(cfg, []byte("[loop_control]\nmax_tool_calls = -1\n"), 0o644)
	r = kimi(t, nil, invocation{args: []string{"--config-file", cfg, "-p", "run two"}})
	if r.code != 2 || !strings.Contains(r.stderr, "loop_control.max_tool_calls must be 0 (no limit) or more") {
		t.Errorf("negative cap: exit %d\n%s", r.code, r.stderr)
	}
}

package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/model/protocols"
)

// parse reads args as kimi-run's command line does in env (run.Main builds the same
// parser), the declared settings filled from env and the config file.
func parse(t *testing.T, env Env, args ...string) Flags {
	t.Helper()
	var f Flags
	p, err := NewParser(&f, env, kong.Name("kimi-run"), kong.Exit(func(int) { t.Fatalf("kong exited on %q", args) }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return f
}

// fileText is a Kimi CLI config.toml that sets every value the precedence tests read.
const fileText = `
default_model = "k2"

[models.k2]
provider = "moon"
model = "kimi-from-file"
max_context_size = 64000

[providers.moon]
type = "kimi"
base_url = "https://file.example/v1"
api_key = "sk-file"

[loop_control]
max_steps_per_turn = 50
max_retries_per_step = 5
max_ralph_iterations = 2
`

// shareDir makes a Kimi share dir holding config.toml (none when text is "").
func shareDir(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	if text != "" {
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPrecedence checks that a flag beats the environment, which beats the config file,
// which beats the default, for each setting with more than one source, Kimi CLI's flag
// aliases included.
func TestPrecedence(t *testing.T) {
	withFile := shareDir(t, fileText)
	noFile := shareDir(t, "")
	type env = map[string]string
	tests := []struct {
		name string
		args []string
		env  env
		file bool
		get  func(*Settings) any
		want any
	}{
		// The model.
		{"model default needs a file", nil, env{"KIMI_MODEL_NAME": "m"}, false, func(s *Settings) any { return s.Endpoint.Model }, "m"},
		{"model from file", nil, nil, true, func(s *Settings) any { return s.Endpoint.Model }, "kimi-from-file"},
		{"model env beats file", nil, env{"KIMI_MODEL_NAME": "kimi-env"}, true, func(s *Settings) any { return s.Endpoint.Model }, "kimi-env"},
		{"model flag beats env", []string{"-m", "k2"}, env{"KIMI_MODEL_NAME": "kimi-env"}, true, func(s *Settings) any { return s.Endpoint.Model }, "kimi-from-file"},
		{"model flag names a model id", []string{"-m", "other"}, env{"KIMI_MODEL_NAME": "kimi-env"}, true, func(s *Settings) any { return s.Endpoint.Model }, "other"},
		// The endpoint and its key.
		{"base URL default", nil, env{"KIMI_MODEL_NAME": "m"}, false, func(s *Settings) any { return s.Endpoint.BaseURL }, DefaultKimiBaseURL},
		{"base URL from file", nil, nil, true, func(s *Settings) any { return s.Endpoint.BaseURL }, "https://file.example/v1"},
		{"base URL env beats file", nil, env{"KIMI_BASE_URL": "https://env.example/v1"}, true, func(s *Settings) any { return s.Endpoint.BaseURL }, "https://env.example/v1"},
		{"base URL flag beats env", []string{"--base-url", "https://flag.example/v1"}, env{"KIMI_BASE_URL": "https://env.example/v1"}, true, func(s *Settings) any { return s.Endpoint.BaseURL }, "https://flag.example/v1"},
		{"OpenAI family default", nil, env{"KIMI_API_KEY": "", "OPENAI_API_KEY": "sk-o", "KIMI_MODEL_NAME": "m"}, false, func(s *Settings) any { return s.Endpoint.BaseURL }, DefaultOpenAIBaseURL},
		{"key from file", nil, env{"KIMI_API_KEY": ""}, true, func(s *Settings) any { return s.Endpoint.APIKey }, "sk-file"},
		{"key env beats file", nil, nil, true, func(s *Settings) any { return s.Endpoint.APIKey }, "sk-env"},
		// The context window.
		{"context default", nil, env{"KIMI_MODEL_NAME": "m"}, false, func(s *Settings) any { return [2]any{s.Endpoint.MaxContext, s.Endpoint.ContextKnown} }, [2]any{DefaultMaxContext, false}},
		{"context from file", nil, nil, true, func(s *Settings) any { return [2]any{s.Endpoint.MaxContext, s.Endpoint.ContextKnown} }, [2]any{64000, true}},
		{"context env beats file", nil, env{"KIMI_MODEL_MAX_CONTEXT_SIZE": "32000"}, true, func(s *Settings) any { return s.Endpoint.MaxContext }, 32000},
		{"context flag beats env", []string{"--max-context-size", "16000"}, env{"KIMI_MODEL_MAX_CONTEXT_SIZE": "32000"}, true, func(s *Settings) any { return s.Endpoint.MaxContext }, 16000},
		// Loop control, and Kimi's names for it.
		{"steps default", nil, env{"KIMI_MODEL_NAME": "m"}, false, func(s *Settings) any { return s.Loop.MaxSteps }, DefaultMaxSteps},
		{"steps from file", nil, nil, true, func(s *Settings) any { return s.Loop.MaxSteps }, 50},
		{"steps flag beats file", []string{"--max-steps", "7"}, nil, true, func(s *Settings) any { return s.Loop.MaxSteps }, 7},
		{"steps Kimi alias beats file", []string{"--max-steps-per-turn", "8"}, nil, true, func(s *Settings) any { return s.Loop.MaxSteps }, 8},
		{"attempts default", nil, env{"KIMI_MODEL_NAME": "m"}, false, func(s *Settings) any { return s.Loop.Attempts }, DefaultAttempts},
		{"attempts from file", nil, nil, true, func(s *Settings) any { return s.Loop.Attempts }, 5},
		{"attempts flag counts retries", []string{"--max-retries", "0"}, nil, true, func(s *Settings) any { return s.Loop.Attempts }, 1},
		{"attempts Kimi alias counts attempts", []string{"--max-retries-per-step", "4"}, nil, true, func(s *Settings) any { return s.Loop.Attempts }, 4},
		{"ralph default", nil, env{"KIMI_MODEL_NAME": "m"}, false, func(s *Settings) any { return s.Ralph }, 0},
		{"ralph from file", nil, nil, true, func(s *Settings) any { return s.Ralph }, 2},
		{"ralph flag beats file, even 0", []string{"--ralph", "0"}, nil, true, func(s *Settings) any { return s.Ralph }, 0},
		{"ralph Kimi alias beats file", []string{"--max-ralph-iterations", "-1"}, nil, true, func(s *Settings) any { return s.Ralph }, -1},
		{"ralph file not for a flow", []string{"--flow", "f.mmd"}, nil, true, func(s *Settings) any { return s.Ralph }, 0},
		// Kimi's aliases of other flags.
		{"session", []string{"-S", "a"}, nil, true, func(s *Settings) any { return s.Session }, "a"},
		{"session Kimi alias", []string{"-r", "b"}, nil, true, func(s *Settings) any { return s.Session }, "b"},
		{"prompt Kimi alias, trimmed", []string{"-c", "  fix it "}, nil, true, func(s *Settings) any { return [2]any{s.Prompt, s.PromptGiven} }, [2]any{"fix it", true}},
		{"prompt given empty", []string{"-p", ""}, nil, true, func(s *Settings) any { return [2]any{s.Prompt, s.PromptGiven} }, [2]any{"", true}},
		{"log level default", nil, nil, true, func(s *Settings) any { return s.Output }, Output{Format: "text", LogLevel: "info"}},
		{"log level --debug", []string{"--debug"}, nil, true, func(s *Settings) any { return s.Output }, Output{Format: "text", LogLevel: "debug"}},
		{"log level --verbose", []string{"--verbose"}, nil, true, func(s *Settings) any { return s.Output }, Output{Format: "text", LogLevel: "info"}},
		{"log level warn is quiet", []string{"--log-level", "warn"}, nil, true, func(s *Settings) any { return s.Output }, Output{Format: "text", LogLevel: "warn", Quiet: true}},
		// The environment's defaults.
		{"stdin timeout default", nil, nil, true, func(s *Settings) any { return s.StdinTimeout }, 60 * time.Second},
		{"stdin timeout on CI", nil, env{"CI": "true"}, true, func(s *Settings) any { return s.StdinTimeout }, CIStdinTimeout},
		{"stdin timeout flag beats CI", []string{"--stdin-timeout", "60s"}, env{"CI": "true"}, true, func(s *Settings) any { return s.StdinTimeout }, 60 * time.Second},
		// The config file: --config text replaces it.
		{"inline config replaces the file", []string{"--config", `{"loop_control": {"max_steps_per_turn": 9}}`}, env{"KIMI_MODEL_NAME": "m"}, true, func(s *Settings) any { return s.Loop.MaxSteps }, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := MapEnv{"KIMI_API_KEY": "sk-env", "KIMI_SHARE_DIR": noFile}
			if tt.file {
				e["KIMI_SHARE_DIR"] = withFile
			}
			for k, v := range tt.env {
				e[k] = v
			}
			s, err := Resolve(context.Background(), parse(t, e, tt.args...), e)
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if got := tt.get(s); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestConflicts checks that clashing synonyms and values Kimi CLI refuses are usage
// errors (exit 2) naming what to fix, and that Resolve never changes the flags.
func TestConflicts(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--max-steps", "1", "--max-steps-per-turn", "2"}, "--max-steps and --max-steps-per-turn cannot be combined"},
		{[]string{"--max-retries", "1", "--max-retries-per-step", "2"}, "--max-retries and --max-retries-per-step cannot be combined"},
		{[]string{"--ralph", "1", "--max-ralph-iterations", "2"}, "--ralph and --max-ralph-iterations cannot be combined"},
		{[]string{"-S", "a", "-r", "b"}, "--session and --resume cannot be combined"},
		{[]string{"--config", "{}", "--config-file", "x.toml"}, "--config and --config-file cannot be combined"},
		{[]string{"--debug", "--log-level", "warn"}, "cannot be combined with --log-level"},
		{[]string{"--verbose", "--log-level", "info"}, "cannot be combined with --log-level"},
		{[]string{"-c", "x", "-p", "y"}, "give the prompt one way"},
		{[]string{"-c", "x", "words"}, "give the prompt one way"},
		{[]string{"-c", "  "}, "-c/--command needs the task text"},
		{[]string{"-p", "a", "-p", "b"}, "-p/--prompt is given 2 times"},
		{[]string{"--max-steps-per-turn", "0"}, "--max-steps-per-turn must be at least 1"},
		{[]string{"--max-steps", "0"}, "--max-steps must be at least 1"},
		{[]string{"--max-retries-per-step", "0"}, "--max-retries-per-step must be at least 1"},
		{[]string{"--max-retries", "-1"}, "--max-retries must be 0"},
		{[]string{"--config", " "}, "--config is empty"},
		{[]string{"--config", "x = ["}, "--config is neither JSON"},
		{[]string{"-r", ""}, "-r/--resume is empty"},
		{[]string{"--input-format", "stream-json", "-c", "-"}, "the prompt cannot also be read from it"},
		{[]string{"--final-message-only", "--output-format", "stream-json"}, "needs --print"},
		{[]string{"--record", "a", "--replay", "b"}, "--record and --replay cannot be combined"},
		{[]string{"--agent", "default", "--agent-file", "a.yaml"}, "--agent and --agent-file cannot be combined"},
		{[]string{"--allow-host", "example.com", "--sandbox-network", "on"}, "--allow-host cuts the network"},
		// Fork and rewind (issue 32 #4).
		{[]string{"--fork-session", "a", "-C"}, "--fork-session makes a session of its own"},
		{[]string{"--fork-session", "a", "--no-session"}, "--fork-session makes a session of its own"},
		{[]string{"--fork-session", "a", "-S", "a"}, "the copy needs a name of its own"},
		{[]string{"--rewind", "2", "-p", "x"}, "--rewind needs the session to rewind"},
		{[]string{"--rewind-files", "-S", "a"}, "--rewind-files needs --rewind CHECKPOINT"},
		{[]string{"--rewind", "-1", "-S", "a"}, "--rewind must be a checkpoint id"},
		{[]string{"--fork-session", ""}, "--fork-session is empty"},
		{[]string{"--show-session", "a", "--rewind", "1"}, "--show-session cannot be combined with --fork-session or --rewind"},
		// Moved from run/ (issue 28 #5): every combination is refused before anything runs.
		{[]string{"--flow", "f.mmd", "--ralph", "2"}, "--flow and --ralph cannot be combined"},
		{[]string{"--flow", "f.mmd", "--max-ralph-iterations", "-1"}, "--flow and --ralph cannot be combined"},
		{[]string{"--no-session", "-S", "a"}, "--no-session cannot be combined with --session or --continue"},
		{[]string{"--no-session", "-C"}, "--no-session cannot be combined with --session or --continue"},
		{[]string{"-S", "a", "-C"}, "--session and --continue cannot be combined"},
		{[]string{"-r", "a", "--continue"}, "--session and --continue cannot be combined"},
		{[]string{"--list-sessions", "--show-session", "a"}, "--list-sessions and --show-session cannot be combined"},
		{[]string{"--list-sessions", "-p", "x"}, "--list-sessions prints sessions and runs nothing: it takes no prompt"},
		{[]string{"--show-session", "a", "--flow", "f.mmd"}, "--show-session prints sessions and runs nothing: it takes no prompt"},
		{[]string{"--list-sessions", "-r", "a"}, "--list-sessions cannot be combined with --session, --continue or --no-session"},
		{[]string{"-p", "a", "words"}, "give the prompt one way"},
		{[]string{"--prompt-file", "p.md", "words"}, "give the prompt one way"},
		{[]string{"-p", "", "--prompt-file", "p.md"}, "give the prompt one way"},
		{[]string{"--mcp-config", "{"}, "--mcp-config #1: not valid JSON"},
		{[]string{"--max-cost-usd", "1"}, "--max-cost-usd needs the model's prices"},
		{[]string{"--config-file", "/nonexistent/config.toml"}, "config file"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			env := MapEnv{"KIMI_API_KEY": "sk", "KIMI_MODEL_NAME": "m", "KIMI_SHARE_DIR": t.TempDir()}
			f := parse(t, env, tt.args...)
			before := f
			_, err := Resolve(context.Background(), f, env)
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want a usage error containing %q", err, tt.want)
			}
			if !reflect.DeepEqual(f, before) {
				t.Errorf("Resolve changed the flags")
			}
		})
	}
}

// TestResolveKeepsWhatItFound checks that a run stopped by a usage error still knows how
// to report and which keys to scrub.
func TestResolveKeepsWhatItFound(t *testing.T) {
	env := MapEnv{"KIMI_API_KEY": "sk"}
	s, err := Resolve(context.Background(), parse(t, env, "--debug", "--max-steps", "0", "--config", `{"providers": {"p": {"api_key": "sk-cfg"}}}`), env)
	if err == nil {
		t.Fatal("no error")
	}
	if s.Output.LogLevel != "debug" || !reflect.DeepEqual(s.Secrets.Own, []string{"sk", "sk-cfg"}) {
		t.Errorf("output %+v, secrets %q", s.Output, s.Secrets.Own)
	}
}

// TestShareDir checks the one place Kimi's files are looked for.
func TestShareDir(t *testing.T) {
	for _, tt := range []struct {
		env  MapEnv
		want string
	}{
		{MapEnv{"KIMI_SHARE_DIR": "/k", "HOME": "/h"}, "/k/mcp.json"},
		{MapEnv{"HOME": "/h"}, filepath.Join("/h", ".kimi", "mcp.json")},
		{MapEnv{}, ""},
	} {
		if got := ShareFile(tt.env, "mcp.json"); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.env, got, tt.want)
		}
	}
}

// TestMCPAndReplaySources checks the sources of the MCP servers and their call timeout
// (flag > config.toml's [mcp.client] > default; --mcp-config-file instead of the share
// dir's mcp.json, --mcp-config on top, --no-mcp over all) and of a replay's endpoint (the
// cassette's base URL even over --base-url; --model over the cassette's model).
func TestMCPAndReplaySources(t *testing.T) {
	share := shareDir(t, "[mcp.client]\ntool_call_timeout_ms = 5000\n")
	write := func(name, text string) string {
		path := filepath.Join(share, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("mcp.json", `{"mcpServers": {"default": {"command": "a"}}}`)
	other := write("other.json", `{"mcpServers": {"other": {"command": "b"}}}`)
	cassette := write("run.cassette", `{"kimi_run_cassette": 1, "recorded_at": "2026-01-01T00:00:00Z", "model": "rec-model", "base_url": "http://rec.example/v1"}`+"\n")
	servers := func(s *Settings) any {
		var names []string
		for _, srv := range s.MCP.Servers {
			names = append(names, srv.Name)
		}
		return strings.Join(names, ",")
	}
	tests := []struct {
		name string
		args []string
		get  func(*Settings) any
		want any
	}{
		{"call timeout from file", nil, func(s *Settings) any { return s.MCP.Call }, 5 * time.Second},
		{"call timeout flag beats file", []string{"--mcp-call-timeout", "7s"}, func(s *Settings) any { return s.MCP.Call }, 7 * time.Second},
		{"call timeout from --config JSON", []string{"--config", `{"mcp": {"client": {"tool_call_timeout_ms": 2500}}}`}, func(s *Settings) any { return s.MCP.Call }, 2500 * time.Millisecond},
		{"call timeout default", []string{"--config", `{}`}, func(s *Settings) any { return s.MCP.Call }, 60 * time.Second},
		{"share dir's mcp.json", nil, servers, "default"},
		{"file flag replaces it", []string{"--mcp-config-file", other}, servers, "other"},
		{"text flag adds", []string{"--mcp-config", `{"mcpServers": {"text": {"url": "http://h/mcp"}}}`}, servers, "default,text"},
		{"no MCP", []string{"--no-mcp", "--mcp-config-file", other}, servers, ""},
		{"replay's base URL beats the flag", []string{"--replay", cassette, "--base-url", "https://flag.example/v1"}, func(s *Settings) any { return s.Endpoint.BaseURL }, "http://rec.example/v1"},
		{"replay's model", []string{"--replay", cassette}, func(s *Settings) any { return s.Endpoint.Model }, "rec-model"},
		{"model flag beats the replay's", []string{"--replay", cassette, "-m", "mine"}, func(s *Settings) any { return s.Endpoint.Model }, "mine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := MapEnv{"KIMI_API_KEY": "sk", "KIMI_MODEL_NAME": "m", "KIMI_SHARE_DIR": share}
			s, err := Resolve(context.Background(), parse(t, env, tt.args...), env)
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if got := tt.get(s); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestEveryProtocolResolves: a provider of every type the model package speaks resolves to
// an endpoint that names it, with the provider's own key and base URL (a new protocol needs
// no change in config), and a type it does not speak is a usage error that lists them.
func TestEveryProtocolResolves(t *testing.T) {
	for _, typ := range append(protocols.Types(), "carrier_pigeon") {
		t.Run(typ, func(t *testing.T) {
			text := fmt.Sprintf("default_model = \"m\"\n[models.m]\nprovider = \"p\"\nmodel = \"the-model\"\n[providers.p]\ntype = %q\nbase_url = \"https://p.example/v1\"\napi_key = \"sk-p\"\n", typ)
			env := MapEnv{"KIMI_SHARE_DIR": shareDir(t, text)}
			s, err := Resolve(context.Background(), parse(t, env, "-p", "x"), env)
			if typ == "carrier_pigeon" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), strings.Join(protocols.Types(), ", ")) {
					t.Fatalf("err = %v, want a usage error listing the protocols", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			e := s.Endpoint
			if e.Protocol != typ || e.Model != "the-model" || e.APIKey != "sk-p" || e.BaseURL != "https://p.example/v1" {
				t.Errorf("endpoint = %+v", e)
			}
		})
	}
}

// The flag's default is the model client's: one cap, whichever way a reply reaches it.
func TestMaxReplyBytesDefault(t *testing.T) {
	f := parse(t, MapEnv{})
	if f.MaxReplyBytes != model.DefaultMaxReplyBytes {
		t.Fatalf("--max-reply-bytes defaults to %d, the client to %d", f.MaxReplyBytes, model.DefaultMaxReplyBytes)
	}
	env := MapEnv{"KIMI_API_KEY": "sk", "KIMI_MODEL_NAME": "m", "KIMI_SHARE_DIR": t.TempDir()}
	if _, err := Resolve(context.Background(), parse(t, env, "--max-reply-bytes", "0"), env); err == nil || !strings.Contains(err.Error(), "--max-reply-bytes") {
		t.Fatalf("0 accepted: %v", err)
	}
}

// TestContextWindowSources: 0 on the command line means "unset" (the default window), as
// before; 0 or less from KIMI_MODEL_MAX_CONTEXT_SIZE is refused, naming the variable.
func TestContextWindowSources(t *testing.T) {
	env := MapEnv{"KIMI_API_KEY": "sk", "KIMI_MODEL_NAME": "m", "KIMI_SHARE_DIR": t.TempDir()}
	s, err := Resolve(context.Background(), parse(t, env, "--max-context-size", "0"), env)
	if err != nil || s.Endpoint.MaxContext != DefaultMaxContext || s.Endpoint.ContextKnown {
		t.Errorf("--max-context-size 0: %v, %d known %v", err, s.Endpoint.MaxContext, s.Endpoint.ContextKnown)
	}
	for _, v := range []string{"0", "-5"} {
		env["KIMI_MODEL_MAX_CONTEXT_SIZE"] = v
		_, err := Resolve(context.Background(), parse(t, env), env)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "KIMI_MODEL_MAX_CONTEXT_SIZE must be a positive number of tokens") {
			t.Errorf("KIMI_MODEL_MAX_CONTEXT_SIZE=%s: %v", v, err)
		}
	}
}

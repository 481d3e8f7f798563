package run_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// A Kimi config.toml with an anthropic provider (issue 30): the run speaks the Messages API,
// with the provider's key as x-api-key, and reads recorded Claude traffic as it is.

// anthropicEnv is the environment of a run whose default model "claude" (model id
// claude-sonnet-4-20250514) is served by url through an anthropic provider; provider holds
// more lines of the provider's table, top lines of the file's top level.
func anthropicEnv(t *testing.T, url, top, provider string) map[string]string {
	t.Helper()
	home := kimiConfig(t, fmt.Sprintf(`%s
default_model = "claude"

[models.claude]
provider = "anthropic"
model = "claude-sonnet-4-20250514"
max_context_size = 200000

[providers.anthropic]
type = "anthropic"
base_url = %q
api_key = %q
%s
`, top, url, testKey, provider))
	return map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": ""}
}

// runAnthropic runs kimi-run in stream-json mode with the anthropic config against srv.
func runAnthropic(t *testing.T, srv *scripted.Server, provider string, args ...string) (result, []map[string]any) {
	t.Helper()
	r := kimi(t, nil, invocation{env: anthropicEnv(t, srv.URL(), "", provider),
		args: append([]string{"--output-format", "stream-json"}, args...)})
	for i, req := range srv.Requests() {
		if req.Path != scripted.AnthropicPath {
			t.Errorf("request %d went to %s", i+1, req.Path)
		}
	}
	return r, events(t, r.stdout)
}

// The config runs: the key goes as x-api-key (never as a bearer token), anthropic-version
// and the custom headers are sent, a tool step and the answer work, and the tool's result
// goes back as a tool_result answering the call.
func TestAnthropicConfigRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the answer is 42\n"), 0o600)
	srv := scripted.New(t,
		scripted.Reply(scripted.Say("Reading it."), scripted.CallID("toolu_read", "ReadFile", `{"path":"notes.txt"}`)),
		scripted.Text("It says 42."))
	r := kimi(t, nil, invocation{dir: dir, env: anthropicEnv(t, srv.URL(), "", `custom_headers = { "X-Team" = "ci", "anthropic-beta" = "context-1m-2025-08-07" }`),
		args: []string{"--output-format", "stream-json", "-p", "what do the notes say?"}})
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	if got := lastResult(t, r)["final_text"]; got != "It says 42." {
		t.Errorf("final text = %v", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	h := reqs[0].Header
	for k, v := range map[string]string{"X-Api-Key": testKey, "Anthropic-Version": "2023-06-01", "X-Team": "ci", "Anthropic-Beta": "context-1m-2025-08-07"} {
		if h.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), v)
		}
	}
	if h.Get("Authorization") != "" || !strings.HasPrefix(h.Get("User-Agent"), "kimi-run/") {
		t.Errorf("Authorization %q, User-Agent %q", h.Get("Authorization"), h.Get("User-Agent"))
	}
	if reqs[0].Path != scripted.AnthropicPath || reqs[0].Body["model"] != "claude-sonnet-4-20250514" {
		t.Errorf("request 1: %s %v", reqs[0].Path, reqs[0].Body["model"])
	}
	tools := reqs[0].MessagesOf("tool")
	if len(tools) != 0 {
		t.Errorf("request 1 has tool results: %v", tools)
	}
	results := reqs[1].MessagesOf("tool")
	if len(results) != 1 || results[0]["tool_call_id"] != "toolu_read" || !strings.Contains(results[0]["content"].(string), "the answer is 42") {
		t.Errorf("tool results sent back = %v", results)
	}
	// max_tokens: the client's 32,000, which the 200,000-token window leaves room for.
	if reqs[0].Body["max_tokens"] != 32000.0 {
		t.Errorf("max_tokens = %v", reqs[0].Body["max_tokens"])
	}
	// The default thinking switch of a Kimi config is off, said the Messages API's way.
	if th, _ := reqs[0].Body["thinking"].(map[string]any); th["type"] != "disabled" {
		t.Errorf("thinking = %v", reqs[0].Body["thinking"])
	}
}

// A small window: max_tokens asks for no more than the room the prompt leaves in it, as the
// Messages API refuses a request whose prompt and max_tokens pass the window.
func TestAnthropicMaxTokensFitTheWindow(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("ok"))
	env := anthropicEnv(t, srv.URL(), "", "")
	home := env["HOME"]
	cfg := filepath.Join(home, ".kimi", "config.toml")
	text, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte(strings.Replace(string(text), "max_context_size = 200000", "max_context_size = 16000", 1)), 0o600)
	r := kimi(t, nil, invocation{env: env, args: []string{"-p", "hi"}})
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	mt, _ := srv.Requests()[0].Body["max_tokens"].(float64)
	if mt <= 0 || mt >= 16000-1024 {
		t.Errorf("max_tokens = %v, want what 16,000 tokens leave after the prompt", mt)
	}
}

// ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN serve a provider without api_key, and are kept
// from the commands the run starts.
func TestAnthropicKeyFromEnvironment(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, variable, header, want string }{
		{name: "api key", variable: "ANTHROPIC_API_KEY", header: "X-Api-Key", want: testKey},
		{name: "auth token", variable: "ANTHROPIC_AUTH_TOKEN", header: "Authorization", want: "Bearer " + testKey},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"env"}`)), scripted.Text("done"))
			home := kimiConfig(t, fmt.Sprintf("default_model = \"c\"\n[models.c]\nprovider = \"a\"\nmodel = \"claude-x\"\nmax_context_size = 100000\n[providers.a]\ntype = \"anthropic\"\nbase_url = %q\n", strings.Replace(srv.URL(), "127.0.0.1", "localhost", 1)))
			r := kimi(t, nil, invocation{env: map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": "", tt.variable: testKey},
				args: []string{"--output-format", "stream-json", "-p", "x"}})
			if r.code != 0 {
				t.Fatalf("exit = %d\n%s", r.code, r.stderr)
			}
			if got := srv.Requests()[0].Header.Get(tt.header); got != tt.want {
				t.Errorf("%s = %q, want %q", tt.header, got, tt.want)
			}
			out := srv.Requests()[1].MessagesOf("tool")[0]["content"].(string)
			if strings.Contains(out, tt.variable) {
				t.Errorf("the command saw %s:\n%s", tt.variable, out)
			}
		})
	}
	// Without any key a remote anthropic provider is a usage error naming the variables.
	home := kimiConfig(t, "default_model = \"c\"\n[models.c]\nprovider = \"a\"\nmodel = \"claude-x\"\n[providers.a]\ntype = \"anthropic\"\nbase_url = \"https://api.anthropic.com\"\n")
	r := kimi(t, nil, invocation{env: map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": ""}, args: []string{"-p", "x"}})
	if r.code != 2 || !strings.Contains(r.stderr, "ANTHROPIC_API_KEY") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// fantasy's recorded claude-sonnet-4 thinking turn through the binary: thinking events, the
// recorded call (of a tool kimi-run does not have, answered with an error the model reads),
// usage totals from the API's counts, and the signed thinking block sent back as received.
func TestReplayAnthropicThinkingTool(t *testing.T) {
	t.Parallel()
	srv := scriptedFrom(t, "anthropic-thinking-tool")
	r, evs := runAnthropic(t, srv, "", "--thinking", "-p", "What's the weather in Florence, Italy?")
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	var thought strings.Builder
	for _, e := range testkit.OfType(evs, "thinking") {
		thought.WriteString(e["delta"].(string))
	}
	if !strings.HasPrefix(thought.String(), "The user is asking for weather information for Florence, Italy.") {
		t.Errorf("thinking = %q", thought.String())
	}
	calls := testkit.OfType(evs, "tool_call")
	if len(calls) != 1 || calls[0]["name"] != "weather" || calls[0]["id"] != "toolu_01Js4AMfx5qpTLhwTusnvT68" {
		t.Errorf("tool calls = %v", calls)
	}
	u := usageTotals(t, r)
	if u["input_tokens"] != 982.0 || u["output_tokens"] != 170.0 {
		t.Errorf("usage = %v", u)
	}
	if th, _ := srv.Requests()[0].Body["thinking"].(map[string]any); th["type"] != "enabled" {
		t.Errorf("thinking asked = %v", srv.Requests()[0].Body["thinking"])
	}
	var recorded []map[string]any
	raw, _ := os.ReadFile(filepath.Join("..", "testdata", "providers", "anthropic-thinking-tool.request2.json"))
	if err := json.Unmarshal(raw, &recorded); err != nil {
		t.Fatal(err)
	}
	want := recorded[0]["content"].([]any)[0].(map[string]any)
	got := srv.Requests()[1].MessagesOf("assistant")[0]["blocks"].([]any)[0].(map[string]any)
	if got["type"] != "thinking" || got["signature"] != want["signature"] || got["thinking"] != want["thinking"] {
		t.Errorf("thinking block sent back = %.200v\nrecorded %.200v", got, want)
	}
	if lastResult(t, r)["final_text"] == "" {
		t.Errorf("no final text")
	}
}

// Errors as Anthropic sends them: 529 and 429 retried with their retry-after read, an error
// event mid-stream retried, then the recorded answer; and a refusal is exit 8.
func TestReplayAnthropicErrors(t *testing.T) {
	t.Parallel()
	srv := scriptedFrom(t, "anthropic-errors")
	r, evs := runAnthropic(t, srv, "", "--max-retries", "3", "-p", "say hi in Portuguese")
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	retries := testkit.OfType(evs, "retry")
	if len(retries) != 3 {
		t.Fatalf("retry events = %v", retries)
	}
	for i, want := range []struct {
		status float64
		says   string
	}{{529, "Overloaded [overloaded_error]"}, {429, "30,000 input tokens per minute"}, {0, "Overloaded"}} {
		ev := retries[i]
		if st, _ := ev["http_status"].(float64); st != want.status || !strings.Contains(ev["error"].(string), want.says) {
			t.Errorf("retry %d = %v", i+1, ev)
		}
	}
	// The retry-after of 529 and 429 was read: the wait is the provider's, capped by
	// --retry-max-delay (10ms in tests), where the backoff alone is 0 in tests.
	if retries[0]["delay_ms"] != 10.0 || retries[1]["delay_ms"] != 10.0 || retries[2]["delay_ms"] != 0.0 {
		t.Errorf("delays = %v %v %v", retries[0]["delay_ms"], retries[1]["delay_ms"], retries[2]["delay_ms"])
	}
	if !strings.HasPrefix(lastResult(t, r)["final_text"].(string), "Olá!") {
		t.Errorf("final text = %v", lastResult(t, r)["final_text"])
	}

	srv = scriptedFrom(t, "anthropic-refusal")
	r, _ = runAnthropic(t, srv, "", "-p", "do something bad")
	if res := lastResult(t, r); r.code != 8 || res["terminal_reason"] != "filtered" || !strings.Contains(r.stderr, "refusal") {
		t.Errorf("refusal: exit %d, result %v\n%s", r.code, res, r.stderr)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("a refusal was asked again: %d requests", len(srv.Requests()))
	}
}

// The recorded redacted thinking and the API's compaction replay to their answers, with
// the cache read counted and priced.
func TestReplayAnthropicRedactedAndCached(t *testing.T) {
	t.Parallel()
	srv := scriptedFrom(t, "anthropic-redacted-thinking")
	r, evs := runAnthropic(t, srv, "", "-p", "x")
	if r.code != 0 || len(testkit.OfType(evs, "thinking")) != 0 || !strings.HasPrefix(lastResult(t, r)["final_text"].(string), "I notice") {
		t.Errorf("redacted: exit %d, result %v", r.code, lastResult(t, r))
	}
	srv = scriptedFrom(t, "anthropic-cache-compaction")
	r, _ = runAnthropic(t, srv, "", "--price-input", "3", "--price-cached-input", "0.3", "--price-output", "15", "-p", "Now say hello.")
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	u := usageTotals(t, r)
	if u["input_tokens"] != 55377.0 || u["cached_tokens"] != 55096.0 || u["output_tokens"] != 91.0 {
		t.Errorf("usage = %v", u)
	}
	want := (281*3 + 55096*0.3 + 91*15) / 1e6
	if got := costOf(t, lastResult(t, r)); got < want-1e-9 || got > want+1e-9 {
		t.Errorf("cost = %v, want %v", got, want)
	}
}

// A resumed session sends a Claude turn back as it came: the thinking block with its
// signature, restored from the session file, then the call and its result.
func TestAnthropicThinkingSurvivesResume(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	srv := scripted.New(t,
		scripted.Reply(scripted.Think("I will list the files."), scripted.CallID("toolu_ls", "Shell", `{"command":"ls"}`)),
		scripted.Text("Listed."),
		scripted.Text("Still listed."))
	env := anthropicEnv(t, srv.URL(), "default_thinking = true", "")
	r := kimi(t, nil, invocation{dir: work, env: env, args: sessionArgs(sessions, "--session", "claude-s", "-p", "list the files")})
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	r = kimi(t, nil, invocation{dir: work, env: env, args: sessionArgs(sessions, "--session", "claude-s", "-p", "and again?")})
	if r.code != 0 {
		t.Fatalf("resumed: exit = %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	asst := reqs[2].MessagesOf("assistant")
	if len(asst) != 2 {
		t.Fatalf("assistant turns sent on resume = %v", asst)
	}
	blocks := asst[0]["blocks"].([]any)
	first := blocks[0].(map[string]any)
	if first["type"] != "thinking" || first["thinking"] != "I will list the files." || first["signature"] != scripted.ThinkingSignature("I will list the files.") {
		t.Errorf("first block sent back after the resume = %v", first)
	}
	if last := blocks[len(blocks)-1].(map[string]any); last["type"] != "tool_use" || last["id"] != "toolu_ls" {
		t.Errorf("last block = %v", last)
	}
	if tools := reqs[2].MessagesOf("tool"); len(tools) != 1 || tools[0]["tool_call_id"] != "toolu_ls" {
		t.Errorf("tool results = %v", tools)
	}
}

// A fallback to an anthropic model takes over a chat-completions conversation whose tool
// call ids the Messages API would refuse (Moonshot's "functions.SetTodoList:0"): the ids go as
// safe ones, alike in the call and its result, and the run ends on the fallback's answer.
func TestAnthropicFallbackTakesOverChatIDs(t *testing.T) {
	t.Parallel()
	main := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		if len(req.MessagesOf("tool")) == 0 {
			return scripted.ToolCalls(scripted.CallID("functions.SetTodoList:0", "SetTodoList", `{"todos":[{"title":"x-marks-the-spot","status":"pending"}]}`))
		}
		return overloaded
	})
	spare := scripted.New(t, scripted.Text("Finished on Claude."))
	home := kimiConfig(t, fmt.Sprintf(`
[models.claude]
provider = "anthropic"
model = "claude-sonnet-4-5"

[providers.anthropic]
type = "anthropic"
base_url = %q
api_key = "sk-ant-fallback-key-12345678"
`, spare.URL()))
	r := kimi(t, main, invocation{env: map[string]string{"HOME": home},
		args: []string{"--output-format", "stream-json", "--max-retries", "0", "--fallback-model", "claude", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := spare.Requests()
	if len(reqs) != 1 || reqs[0].Path != scripted.AnthropicPath {
		t.Fatalf("the fallback got %d requests", len(reqs))
	}
	calls := reqs[0].MessagesOf("assistant")[0]["tool_calls"].([]any)
	id := calls[0].(map[string]any)["id"]
	if id != "functions_SetTodoList_0" {
		t.Errorf("call id sent = %v", id)
	}
	if tools := reqs[0].MessagesOf("tool"); len(tools) != 1 || tools[0]["tool_call_id"] != id {
		t.Errorf("tool result sent = %v", tools)
	}
	if res := lastResult(t, r); res["final_text"] != "Finished on Claude." {
		t.Errorf("final_text = %v", res["final_text"])
	}
}

package run_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// hookConfig writes a config.toml holding hooks and returns the --config-file arguments.
func hookConfig(t *testing.T, toml string) []string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the hook commands are POSIX shell")
	}
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"--config-file", p}
}

// lastToolOutput is the content of the last message of request i: a tool result.
func lastToolOutput(t *testing.T, srv *scripted.Server, i int) string {
	t.Helper()
	msgs := srv.Requests()[i].Messages()
	c, _ := msgs[len(msgs)-1]["content"].(string)
	return c
}

// The guard from Kimi CLI's hook docs: a PreToolUse hook that refuses edits of .env.
func TestPreToolUseHookGuardsEnvFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".env"), []byte("TOKEN=original\n"), 0o600)
	cfg := hookConfig(t, `
[[hooks]]
event = "PreToolUse"
matcher = "WriteFile|StrReplaceFile"
command = "grep -q '\"path\": *\"[^\"]*\\.env\"' && { echo 'Editing .env is not allowed; change .env.example instead.' >&2; exit 2; }; exit 0"
timeout = 10
`)
	srv := scripted.New(t,
		scripted.ToolCalls(
			scripted.CallID("c1", "WriteFile", `{"path":".env","content":"TOKEN=stolen\n"}`),
			scripted.CallID("c2", "WriteFile", `{"path":".env.example","content":"TOKEN=\n"}`),
		),
		scripted.Text("I changed .env.example instead."),
	)
	args := append(cfg, "--output-format", "stream-json", "-p", "set the token")
	r := kimi(t, srv, invocation{dir: dir, args: args})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".env")); string(b) != "TOKEN=original\n" {
		t.Errorf(".env = %q, want it untouched", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".env.example")); string(b) != "TOKEN=\n" {
		t.Errorf(".env.example = %q: the allowed write did not happen", b)
	}
	// The model got the hook's stderr as the result of the blocked call.
	msgs := srv.Requests()[1].Messages()
	results := map[string]string{}
	for _, m := range msgs {
		if m["role"] == "tool" {
			results[m["tool_call_id"].(string)] = m["content"].(string)
		}
	}
	if !strings.Contains(results["c1"], "Editing .env is not allowed; change .env.example instead.") {
		t.Errorf("result of the blocked call = %q", results["c1"])
	}
	if strings.Contains(results["c2"], "not allowed") {
		t.Errorf("result of the allowed call = %q", results["c2"])
	}
	evs := events(t, r.stdout)
	var blocked, allowed int
	for _, h := range testkit.OfType(evs, "hook") {
		if h["event"] != "PreToolUse" || h["target"] != "WriteFile" || h["command"] == "" {
			t.Errorf("hook event = %v", h)
		}
		switch {
		case h["blocked"] == true && h["exit_code"] == 2.0 && h["tool_call_id"] == "c1":
			blocked++
		case h["blocked"] == false && h["exit_code"] == 0.0 && h["tool_call_id"] == "c2":
			allowed++
		}
	}
	if blocked != 1 || allowed != 1 {
		t.Errorf("hook events: %d blocked, %d allowed:\n%s", blocked, allowed, r.stdout)
	}
	if res := lastResult(t, r); res["final_text"] != "I changed .env.example instead." {
		t.Errorf("result = %v", res)
	}
}

func TestHookThatNeverEndsIsKilled(t *testing.T) {
	t.Parallel()
	cfg := hookConfig(t, `
[[hooks]]
event = "PreToolUse"
command = "sleep 1000"
timeout = 1
`)
	for _, format := range []string{"stream-json", "text"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo still-running"}`)),
				scripted.Text("done"),
			)
			r := kimi(t, srv, invocation{args: append(cfg, "--output-format", format, "-p", "go")})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if out := lastToolOutput(t, srv, 1); !strings.Contains(out, "still-running") {
				t.Errorf("the tool did not run after the hook timed out: %q", out)
			}
			if format == "text" {
				if r.stdout != "done\n" || !strings.Contains(r.stderr, "timed out after 1s") {
					t.Errorf("stdout %q, stderr:\n%s", r.stdout, r.stderr)
				}
				return
			}
			evs := events(t, r.stdout)
			hs := testkit.OfType(evs, "hook")
			if len(hs) != 1 || hs[0]["timed_out"] != true || hs[0]["exit_code"] != -1.0 || hs[0]["blocked"] != false {
				t.Errorf("hook events = %v", hs)
			}
			ws := testkit.OfType(evs, "warning")
			if len(ws) != 1 || !strings.Contains(ws[0]["message"].(string), "timed out after 1s and was killed") {
				t.Errorf("warnings = %v", ws)
			}
		})
	}
}

// The lifecycle hooks around a run: SessionStart and UserPromptSubmit add context to the
// prompt, Stop blocks once and gets one more turn, SessionEnd hears how the run ended.
func TestRunLifecycleHooks(t *testing.T) {
	t.Parallel()
	logDir := t.TempDir()
	logf := func(name string) string { return filepath.Join(logDir, name) }
	cfg := hookConfig(t, `
[[hooks]]
event = "SessionStart"
matcher = "startup"
command = "cat > `+logf("start.json")+`; echo 'The release branch is frozen.'"

[[hooks]]
event = "UserPromptSubmit"
command = "echo 'Ticket: CI-42'"

[[hooks]]
event = "Stop"
command = "cat >> `+logf("stop.json")+`; echo 'Run the tests before you finish.' >&2; exit 2"

[[hooks]]
event = "SessionEnd"
command = "cat > `+logf("end.json")+`"
`)
	srv := scripted.New(t,
		scripted.Text("First answer."),
		scripted.Text("Tests pass. Final answer."),
	)
	r := kimi(t, srv, invocation{args: append(cfg, "--output-format", "stream-json", "-p", "fix it")})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the turn and one Stop re-trigger", len(reqs))
	}
	first := reqs[0].Messages()
	prompt := first[len(first)-1]["content"].(string)
	if !strings.HasPrefix(prompt, "fix it") || !strings.Contains(prompt, "The release branch is frozen.") || !strings.Contains(prompt, "Ticket: CI-42") {
		t.Errorf("prompt with hook context = %q", prompt)
	}
	second := reqs[1].Messages()
	if got := second[len(second)-1]["content"]; got != "Run the tests before you finish." {
		t.Errorf("re-trigger prompt = %q", got)
	}
	if res := lastResult(t, r); res["final_text"] != "Tests pass. Final answer." {
		t.Errorf("result = %v", res)
	}
	// Stop runs once: the re-triggered turn is not stopped again.
	if b, _ := os.ReadFile(logf("stop.json")); strings.Count(string(b), "\n") != 1 || !strings.Contains(string(b), `"stop_hook_active":false`) {
		t.Errorf("Stop inputs = %q", b)
	}
	if b, _ := os.ReadFile(logf("start.json")); !strings.Contains(string(b), `"source":"startup"`) || !strings.Contains(string(b), `"hook_event_name":"SessionStart"`) {
		t.Errorf("SessionStart input = %q", b)
	}
	if b, _ := os.ReadFile(logf("end.json")); !strings.Contains(string(b), `"reason":"exit"`) || !strings.Contains(string(b), `"terminal_reason":"completed"`) {
		t.Errorf("SessionEnd input = %q", b)
	}
	if n := len(testkit.OfType(events(t, r.stdout), "hook")); n != 4 {
		t.Errorf("%d hook events, want 4", n)
	}
}

func TestUserPromptSubmitHookBlocks(t *testing.T) {
	t.Parallel()
	cfg := hookConfig(t, `
[[hooks]]
event = "UserPromptSubmit"
matcher = "(?i)deploy"
command = "echo 'Deploys go through the release pipeline.' >&2; exit 2"
`)
	srv := scripted.New(t)
	r := kimi(t, srv, invocation{args: append(cfg, "--output-format", "stream-json", "-p", "Deploy to production")})
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model calls after the prompt was blocked", n)
	}
	res := lastResult(t, r)
	e, _ := res["error"].(map[string]any)
	if e["kind"] != "hook" || !strings.Contains(e["message"].(string), "Deploys go through the release pipeline.") {
		t.Errorf("result = %v", res)
	}
}

func TestHooksDoNotSeeAKeyFromTheConfigFile(t *testing.T) {
	t.Parallel()
	const fileKey = "sk-from-config-file-0123456789"
	envOut := filepath.Join(t.TempDir(), "env.txt")
	srv := scripted.New(t, scripted.Text("ok"))
	home := kimiConfig(t, `
default_model = "k2"
[models.k2]
provider = "p"
model = "test-model"
max_context_size = 100000
[providers.p]
type = "kimi"
base_url = "`+srv.URL()+`"
api_key = "`+fileKey+`"

[[hooks]]
event = "SessionStart"
command = "env > `+envOut+`"
`)
	env := map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": ""}
	r := kimi(t, nil, invocation{env: env, args: []string{"-p", "hi"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+fileKey {
		t.Fatalf("the file's key was not used: %q", got)
	}
	b, err := os.ReadFile(envOut)
	if err != nil || len(b) == 0 {
		t.Fatalf("the hook did not run: %v", err)
	}
	if strings.Contains(string(b), fileKey) {
		t.Errorf("a hook saw the key from config.toml in its environment")
	}
}

func TestBadHookIsAUsageError(t *testing.T) {
	t.Parallel()
	tests := []struct{ toml, want string }{
		{"[[hooks]]\nevent = \"BeforeTool\"\ncommand = \"true\"\n", "unknown event"},
		{"[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"(?<=x)\"\ncommand = \"true\"\n", "not a valid regular expression"},
		{"[[hooks]]\nevent = \"Stop\"\ncommand = \"true\"\n[[hooks]]\nevent = \"Stop\"\ncommand = \"\"\n", "hooks[1]"},
		{"[[hooks]]\nevent = \"Stop\"\ncommand = \"true\"\ntimeout = 0\n", "timeout must be 1 to 600 seconds"},
	}
	for _, tt := range tests {
		srv := scripted.New(t)
		r := kimi(t, srv, invocation{args: append(hookConfig(t, tt.toml), "-p", "x")})
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tt.want)
		}
	}
}

func TestStopFailureHook(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "failure.json")
	cfg := hookConfig(t, `
[[hooks]]
event = "StopFailure"
matcher = "provider"
command = "cat > `+out+`"

[[hooks]]
event = "Stop"
command = "echo never >&2; exit 2"
`)
	srv := scripted.New(t, scripted.Status(400, scripted.ErrorBody("invalid_request_error", "context too long")))
	r := kimi(t, srv, invocation{args: append(cfg, "-p", "x")})
	if r.code != 1 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), `"error_type":"provider"`) || !strings.Contains(string(b), "context too long") {
		t.Errorf("StopFailure input = %q, %v", b, err)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("%d requests: a failed run must not be re-triggered by Stop", len(srv.Requests()))
	}
}

// TestUserPromptSubmitBlockKeepsStdoutClean: a blocked prompt is a failure (exit 1), and in
// text mode its reason goes to stderr only: `kimi-run -p ... > answer.md` must not leave the
// hook's reason in answer.md as if it were the answer. (Kimi CLI prints the reason as the
// turn's text and exits 0; README "Coming from Kimi CLI" says why kimi-run differs.) With
// --print --output-format stream-json the reason is the turn's assistant line, as in Kimi.
func TestUserPromptSubmitBlockKeepsStdoutClean(t *testing.T) {
	t.Parallel()
	cfg := hookConfig(t, `
[[hooks]]
event = "UserPromptSubmit"
command = "echo 'Deploys go through the release pipeline.' >&2; exit 2"
`)
	const reason = "Deploys go through the release pipeline."
	srv := scripted.New(t)
	r := kimi(t, srv, invocation{args: append(cfg, "-p", "Deploy to production")})
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, reason) {
		t.Errorf("text mode: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = kimi(t, srv, invocation{args: append(cfg, "--print", "--output-format", "stream-json", "-p", "Deploy to production")})
	if r.code != 1 || strings.TrimSpace(r.stdout) != `{"role":"assistant","content":"`+reason+`"}` {
		t.Errorf("Kimi message lines: exit %d, stdout %q", r.code, r.stdout)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model calls after the prompt was blocked", n)
	}
}

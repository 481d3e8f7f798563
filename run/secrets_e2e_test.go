package run_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// fileKey is a config.toml api_key that KIMI_API_KEY overrides: unused, still a secret.
const fileKey = "sk-file-0verridden-k3y-9876543210"

// secretsHome writes a config.toml whose provider key the environment overrides.
func secretsHome(t *testing.T, srv *scripted.Server, extra string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the commands are POSIX shell")
	}
	return kimiConfig(t, `
default_model = "k2"
[models.k2]
provider = "p"
model = "test-model"
[providers.p]
type = "kimi"
base_url = "`+srv.URL()+`"
api_key = "`+fileKey+`"
`+extra)
}

// Issue 17 #7: the model saw the API key when a Shell command printed the environment
// (events and session showed [redacted], the request body had the key). Neither key
// reaches the model now: not through the environment (also when exported under another
// name), not through a file the command reads.
func TestShellCommandsDoNotSeeTheKeys(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("c1", "Shell", `{"command":"env; cat \"$HOME/.kimi/config.toml\""}`)),
		scripted.Text("done"),
	)
	home := secretsHome(t, srv, "")
	env := map[string]string{"HOME": home, "KIMI_BASE_URL": "", "MY_COPY_OF_THE_KEY": fileKey}
	r := kimi(t, srv, invocation{env: env, args: []string{"--output-format", "stream-json", "-p", "print env"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Fatalf("the environment's key was not the one used: %q", got)
	}
	out := lastToolOutput(t, srv, 1)
	if !strings.Contains(out, "KIMI_MODEL_NAME=test-model") || !strings.Contains(out, `api_key = "[redacted]"`) {
		t.Fatalf("the command's output is not what the test expects:\n%s", out)
	}
	raw := string(srv.Requests()[1].Raw)
	for _, k := range []string{testKey, fileKey} {
		if strings.Contains(raw, k) {
			t.Errorf("the request body holds the key %q", k)
		}
		if strings.Contains(r.stdout, k) || strings.Contains(r.stderr, k) {
			t.Errorf("the output holds the key %q", k)
		}
	}
	if strings.Contains(out, "KIMI_API_KEY") || strings.Contains(out, "MY_COPY_OF_THE_KEY") {
		t.Errorf("a credential variable reached the command:\n%s", out)
	}
}

// --pass-env gives a command the variable it needs (a nested kimi-run, say); what it
// prints is still scrubbed before the model reads it.
func TestPassEnvGivesTheKeyToCommands(t *testing.T) {
	t.Parallel()
	seen := filepath.Join(t.TempDir(), "seen")
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("c1", "Shell", `{"command":"printenv KIMI_API_KEY > `+seen+`; printenv KIMI_API_KEY"}`)),
		scripted.Text("done"),
	)
	r := kimi(t, srv, invocation{args: []string{"--pass-env", "KIMI_API_KEY", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(seen); strings.TrimSpace(string(b)) != testKey {
		t.Errorf("the command saw KIMI_API_KEY=%q despite --pass-env", b)
	}
	if raw := string(srv.Requests()[1].Raw); strings.Contains(raw, testKey) || !strings.Contains(lastToolOutput(t, srv, 1), "[redacted]") {
		t.Errorf("the model got the key, or not the scrubbed output: %q", lastToolOutput(t, srv, 1))
	}
}

// A hook reads the tool's output on stdin: scrubbed like every other output, and the hook
// gets no key in its environment.
func TestHookStdinIsScrubbed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input, envOut := filepath.Join(dir, "input.json"), filepath.Join(dir, "env.txt")
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("c1", "Shell", `{"command":"cat \"$HOME/.kimi/config.toml\""}`)),
		scripted.Text("done"),
	)
	home := secretsHome(t, srv, `
[[hooks]]
event = "PostToolUse"
command = "cat > `+input+`; env > `+envOut+`"
`)
	r := kimi(t, srv, invocation{env: map[string]string{"HOME": home, "KIMI_BASE_URL": ""}, args: []string{"-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(input)
	if err != nil || !strings.Contains(string(b), `[redacted]`) {
		t.Fatalf("hook input = %q, %v", b, err)
	}
	e, _ := os.ReadFile(envOut)
	for _, k := range []string{testKey, fileKey} {
		if strings.Contains(string(b), k) || strings.Contains(string(e), k) {
			t.Errorf("the hook saw the key %q", k)
		}
	}
}

// Terminal control sequences in a tool's output (a title change, a screen clear, a line
// overwritten with \r) reach stderr as visible text, in text mode and in stream-json mode.
func TestTerminalEscapesAreNeutralized(t *testing.T) {
	t.Parallel()
	cmd := `printf 'out \033]0;pwned\007 \033[2J \033[31mred\033[0m fake\rline\n' >&2; exit 3`
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.CallID("c1", "Shell", `{"command":"`+strings.ReplaceAll(cmd, `\`, `\\`)+`"}`)),
				scripted.Status(400, scripted.ErrorBody("invalid_request_error", "bad \x1b[2J request")),
			)
			r := kimi(t, srv, invocation{args: []string{"--output-format", format, "--log-level", "debug", "-p", "x"}})
			if r.code != 1 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if strings.ContainsAny(r.stderr, "\x1b\x07\r") {
				t.Errorf("stderr holds terminal control characters:\n%q", r.stderr)
			}
			if format == "text" && !strings.Contains(r.stderr, `\x1b[31mred`) {
				t.Errorf("stderr does not show the output's escapes as text:\n%s", r.stderr)
			}
			// The model still gets the output as the command wrote it.
			if out := lastToolOutput(t, srv, 1); !strings.Contains(out, "\x1b[31mred") {
				t.Errorf("tool output sent to the model = %q", out)
			}
		})
	}
}

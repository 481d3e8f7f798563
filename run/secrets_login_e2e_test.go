package run_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// leaks names each place in where (stdout, a request body, a session file…) that holds
// one of secrets, and which.
func leaks(where map[string]string, secrets ...string) []string {
	var out []string
	for name, text := range where {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				out = append(out, name+" holds "+s)
			}
		}
	}
	return out
}

// runTexts is everything a run left for a person or a program to read: its streams, the
// request that brought the model the first tool's output, and every file of its session
// dir.
func runTexts(t *testing.T, r result, srv *scripted.Server, sessions string) map[string]string {
	t.Helper()
	// The request that carries the command's output; later ones repeat what the model
	// itself said, which it knows already.
	where := map[string]string{"stdout": r.stdout, "stderr": r.stderr, "the request after the command": string(srv.Requests()[1].Raw)}
	filepath.WalkDir(sessions, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			where[p] = string(b)
		}
		return nil
	})
	if len(where) < 4 {
		t.Fatalf("the run left nothing to check: %v", where)
	}
	return where
}

// Issue 26 #2: `cat ~/.kimi/credentials/kimi-code.json` from a command handed the model
// the refresh token (login in use), or both tokens (KIMI_API_KEY set, the login unused).
// Every stored login's tokens are secrets whether used or not, and so are the tokens a
// refresh brings mid-run; a hostile model that repeats a token it pieced together finds it
// scrubbed from the events and the session too.
func TestStoredLoginTokensNeverLeak(t *testing.T) {
	t.Parallel()
	const (
		storedAccess  = "stored-access-token-1"
		storedRefresh = "stored-refresh-token-1"
		freshAccess   = "fresh-access-token-9" // fakeOAuth's
		freshRefresh  = "fresh-refresh-token-9"
		otherAccess   = "other-login-access-7"
		otherRefresh  = "other-login-refresh-7"
	)
	stored := []string{storedAccess, storedRefresh, otherAccess, otherRefresh}
	tests := []struct {
		name    string
		expires time.Duration
		env     map[string]string
		secrets []string // the tokens that exist on the machine during the run
	}{
		{name: "login in use, refreshed mid-run", expires: -time.Hour, secrets: append([]string{freshAccess, freshRefresh}, stored...)},
		{name: "login in use, fresh", expires: time.Hour, secrets: stored},
		{name: "KIMI_API_KEY set, login unused", expires: time.Hour, env: map[string]string{"KIMI_API_KEY": testKey}, secrets: stored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			oauth, _ := fakeOAuth(t, storedRefresh)
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.CallID("c1", "Shell", `{"command":"cat \"$HOME\"/.kimi/credentials/*.json"}`)),
				// The model repeats what it would have pieced together (rev, base64…).
				scripted.ToolCalls(scripted.CallID("c2", "SetTodoList", `{"todos":[{"title":"the tokens are `+strings.Join(tt.secrets, " ")+`","status":"pending"}]}`)),
				scripted.Text("tokens: "+strings.Join(tt.secrets, ", ")),
			)
			home := kimiConfig(t, loginTOML(srv.URL(), ""))
			storeLogin(t, home, storedAccess, storedRefresh, tt.expires)
			other := filepath.Join(home, ".kimi", "credentials", "other.json")
			os.WriteFile(other, []byte(`{"access_token":"`+otherAccess+`","refresh_token":"`+otherRefresh+`","expires_at":1}`), 0o600)
			sessions := t.TempDir()
			env := map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": "", "KIMI_CODE_OAUTH_HOST": oauth.URL}
			for k, v := range tt.env {
				env[k] = v
			}
			r := kimi(t, nil, invocation{env: env, args: []string{"--output-format", "stream-json", "--session-dir", sessions, "-p", "read the login"}})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if out := lastToolOutput(t, srv, 1); !strings.Contains(out, `"access_token":"[redacted]"`) || !strings.Contains(out, `"refresh_token":"[redacted]"`) {
				t.Fatalf("the command did not print the token files as the test expects:\n%s", out)
			}
			for _, l := range leaks(runTexts(t, r, srv, sessions), tt.secrets...) {
				t.Error(l)
			}
		})
	}
}

// Every provider's key and custom header values are secrets, used or not: a command that
// prints the config file shows none of them, and none reaches a command's environment.
func TestEveryConfiguredCredentialIsScrubbed(t *testing.T) {
	t.Parallel()
	const (
		usedKey   = "sk-used-provider-key-111"
		otherKey  = "sk-other-provider-key-222"
		gateway   = "gw-header-secret-333"
		bearer    = "bearer-header-token-444"
		plainHead = "kimi-run-ci-team" // X-Title: not a credential, kept
	)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("c1", "Shell", `{"command":"cat \"$HOME/.kimi/config.toml\"; env"}`)),
		scripted.Text("done"),
	)
	home := kimiConfig(t, `
default_model = "m"
[models.m]
provider = "used"
model = "test-model"
[providers.used]
type = "kimi"
base_url = "`+srv.URL()+`"
api_key = "`+usedKey+`"
custom_headers = { X-Gateway-Key = "`+gateway+`", X-Title = "`+plainHead+`" }
[providers.other]
type = "openai_legacy"
base_url = "http://127.0.0.1:1/v1"
api_key = "`+otherKey+`"
custom_headers = { Authorization = "Bearer `+bearer+`" }
`)
	sessions := t.TempDir()
	env := map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_BASE_URL": "", "GATEWAY_COPY": gateway, "BEARER_COPY": bearer}
	r := kimi(t, srv, invocation{env: env, args: []string{"--output-format", "stream-json", "--session-dir", sessions, "-p", "print the config"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := srv.Requests()[0].Header.Get("X-Gateway-Key"); got != gateway {
		t.Fatalf("the custom header was not sent: %q", got)
	}
	out := lastToolOutput(t, srv, 1)
	if !strings.Contains(out, `api_key = "[redacted]"`) || !strings.Contains(out, plainHead) {
		t.Fatalf("the command's output is not what the test expects:\n%s", out)
	}
	if strings.Contains(out, "GATEWAY_COPY") || strings.Contains(out, "BEARER_COPY") {
		t.Errorf("a variable holding a credential reached the command:\n%s", out)
	}
	for _, l := range leaks(runTexts(t, r, srv, sessions), usedKey, otherKey, gateway, bearer) {
		t.Error(l)
	}
}

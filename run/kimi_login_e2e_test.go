package run_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// loginTOML is the provider `kimi login` writes: no key, a reference to the stored login.
func loginTOML(url, apiKey string) string {
	return fmt.Sprintf(`default_model = "kimi-code/kimi-for-coding"

[models."kimi-code/kimi-for-coding"]
provider = "managed:kimi-code"
model = "kimi-for-coding"
max_context_size = 262144

[providers."managed:kimi-code"]
type = "kimi"
base_url = "%s"
api_key = "%s"
oauth = { storage = "file", key = "oauth/kimi-code" }
`, url, apiKey)
}

// storeLogin writes the token file `kimi login` leaves under HOME/.kimi/credentials.
func storeLogin(t *testing.T, home, access, refresh string, expiresIn time.Duration) string {
	t.Helper()
	path := filepath.Join(home, ".kimi", "credentials", "kimi-code.json")
	os.MkdirAll(filepath.Dir(path), 0o700)
	b, _ := json.Marshal(map[string]any{"access_token": access, "refresh_token": refresh,
		"expires_at": float64(time.Now().Add(expiresIn).Unix()), "scope": "kimi-code", "token_type": "Bearer", "expires_in": 900})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeOAuth is a local stand-in for Kimi's OAuth host: it accepts the refresh token good
// once, or refuses every refresh (HTTP 401, as Kimi's host does for a revoked login).
func fakeOAuth(t *testing.T, good string) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/api/oauth/token" || r.PostForm.Get("refresh_token") != good || good == "" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"invalid_grant","error_description":"the login was revoked"}`)
			return
		}
		good = "" // refresh tokens work once
		fmt.Fprint(w, `{"access_token":"fresh-access-token-9","refresh_token":"fresh-refresh-token-9","expires_in":900,"scope":"kimi-code","token_type":"Bearer"}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestKimiLogin drives the binary with a provider written by Kimi CLI's `kimi login`
// (issue 18 #1): the stored token is used, refreshed when expired against the OAuth host
// (here a local fake, via KIMI_CODE_OAUTH_HOST) and written back; a login the host refuses
// is exit 5; no token ever reaches stdout or stderr.
func TestKimiLogin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		expiresIn  time.Duration
		refresh    string // the refresh token the fake host accepts; "" refuses all
		env        map[string]string
		code       int
		authHeader string
		refreshes  int32
		stderr     string
	}{
		{name: "fresh token is used as stored", expiresIn: time.Hour, refresh: "stored-refresh-token-1",
			code: 0, authHeader: "Bearer stored-access-token-1", refreshes: 0},
		{name: "expired token is refreshed and written back", expiresIn: -time.Hour, refresh: "stored-refresh-token-1",
			code: 0, authHeader: "Bearer fresh-access-token-9", refreshes: 1},
		{name: "a refused refresh is exit 5", expiresIn: -time.Hour, refresh: "",
			code: 5, refreshes: 1, stderr: "kimi login"},
		{name: "KIMI_API_KEY beats the login", expiresIn: -time.Hour, refresh: "stored-refresh-token-1",
			env: map[string]string{"KIMI_API_KEY": testKey}, code: 0, authHeader: "Bearer " + testKey, refreshes: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			oauth, refreshes := fakeOAuth(t, tt.refresh)
			srv := scripted.New(t, scripted.Text("ok"))
			home := kimiConfig(t, loginTOML(srv.URL(), ""))
			path := storeLogin(t, home, "stored-access-token-1", "stored-refresh-token-1", tt.expiresIn)
			env := map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": "", "KIMI_CODE_OAUTH_HOST": oauth.URL}
			for k, v := range tt.env {
				env[k] = v
			}
			r := kimi(t, nil, invocation{env: env, args: []string{"--output-format", "stream-json", "-p", "hi"}})
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			if got := refreshes.Load(); got != tt.refreshes {
				t.Errorf("%d refresh requests, want %d", got, tt.refreshes)
			}
			reqs := srv.Requests()
			if tt.authHeader != "" && (len(reqs) == 0 || reqs[0].Header.Get("Authorization") != tt.authHeader) {
				t.Errorf("model requests %d, Authorization %q; want %q", len(reqs), reqs[0].Header.Get("Authorization"), tt.authHeader)
			}
			if tt.code != 0 {
				if len(reqs) != 0 {
					t.Errorf("%d model calls with an expired login", len(reqs))
				}
				res := lastResult(t, r)
				if e, _ := res["error"].(map[string]any); res["terminal_reason"] != "auth" || e["kind"] != "auth" {
					t.Errorf("result = %v", res)
				}
			}
			if tt.stderr != "" && !strings.Contains(r.stdout+r.stderr, tt.stderr) {
				t.Errorf("output lacks %q:\n%s\n%s", tt.stderr, r.stdout, r.stderr)
			}
			for _, secret := range []string{"stored-access-token-1", "stored-refresh-token-1", "fresh-access-token-9", "fresh-refresh-token-9"} {
				if strings.Contains(r.stdout, secret) || strings.Contains(r.stderr, secret) {
					t.Errorf("%s was printed", secret)
				}
			}
			stored, _ := os.ReadFile(path)
			if refreshed := strings.Contains(string(stored), "fresh-refresh-token-9"); refreshed != (tt.authHeader == "Bearer fresh-access-token-9") {
				t.Errorf("token file after the run: %s", stored)
			}
		})
	}
}

// TestKimiLoginMissing: a login provider whose token file is gone, with no key to fall back
// on, is a configuration error that says how to log in (exit 2, before any model call).
func TestKimiLoginMissing(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("ok"))
	home := kimiConfig(t, loginTOML("https://api.kimi.example/coding/v1", ""))
	r := kimi(t, srv, invocation{env: map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": ""}, args: []string{"-p", "hi"}})
	if r.code != 2 || !strings.Contains(r.stderr, "kimi login") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	// With a key of its own in the file, the provider uses it, as Kimi CLI falls back.
	home = kimiConfig(t, loginTOML(srv.URL(), testKey))
	r = kimi(t, srv, invocation{env: map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": ""}, args: []string{"-p", "hi"}})
	if r.code != 0 || srv.Requests()[0].Header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("fallback to api_key: exit %d\n%s", r.code, r.stderr)
	}
}

// TestKimiLoginRefreshedAfter401: a token the provider refuses before its expiry (revoked,
// rotated elsewhere) is refreshed at once and the request sent again, as Kimi CLI's
// connection recovery does after a 401.
func TestKimiLoginRefreshedAfter401(t *testing.T) {
	t.Parallel()
	oauth, refreshes := fakeOAuth(t, "stored-refresh-token-1")
	srv := scripted.New(t, scripted.Status(401, scripted.ErrorBody("invalid_authentication_error", "token revoked")), scripted.Text("ok"))
	home := kimiConfig(t, loginTOML(srv.URL(), ""))
	storeLogin(t, home, "stored-access-token-1", "stored-refresh-token-1", time.Hour)
	env := map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": "", "KIMI_CODE_OAUTH_HOST": oauth.URL}
	r := kimi(t, nil, invocation{env: env, args: []string{"-p", "hi"}})
	if r.code != 0 || strings.TrimSpace(r.stdout) != "ok" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Header.Get("Authorization") != "Bearer stored-access-token-1" || reqs[1].Header.Get("Authorization") != "Bearer fresh-access-token-9" {
		t.Errorf("%d requests; want the stored token refused, then the refreshed one", len(reqs))
	}
	if refreshes.Load() != 1 {
		t.Errorf("%d refreshes, want 1", refreshes.Load())
	}
}

// TestKimiLoginRevoked: the provider refuses the token and the OAuth host refuses to
// refresh it: the login is over, exit 5, after one try of each.
func TestKimiLoginRevoked(t *testing.T) {
	t.Parallel()
	oauth, refreshes := fakeOAuth(t, "")
	srv := scripted.New(t, scripted.Status(401, scripted.ErrorBody("invalid_authentication_error", "token revoked")).Forever())
	home := kimiConfig(t, loginTOML(srv.URL(), ""))
	storeLogin(t, home, "stored-access-token-1", "stored-refresh-token-1", time.Hour)
	env := map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": "", "KIMI_CODE_OAUTH_HOST": oauth.URL}
	r := kimi(t, nil, invocation{env: env, args: []string{"-p", "hi"}})
	if r.code != 5 || r.stdout != "" || strings.Contains(r.stderr, "stored-access-token-1") {
		t.Errorf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if refreshes.Load() != 1 {
		t.Errorf("%d refreshes, want 1", refreshes.Load())
	}
}

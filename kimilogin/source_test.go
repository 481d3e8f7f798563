package kimilogin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAuth is a local OAuth host that rotates refresh tokens as Kimi's does: each refresh
// token works once. statuses, when set, are answered (in order) before any refresh works.
type fakeAuth struct {
	mu       sync.Mutex
	valid    map[string]bool // refresh tokens the host still accepts
	n        int             // tokens issued
	statuses []int
	forms    []map[string]string
	headers  []http.Header
}

func newFakeAuth(t *testing.T, refresh ...string) (*fakeAuth, *httptest.Server) {
	f := &fakeAuth{valid: map[string]bool{}}
	for _, r := range refresh {
		f.valid[r] = true
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/oauth/token" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		r.ParseForm()
		f.mu.Lock()
		defer f.mu.Unlock()
		form := map[string]string{}
		for k := range r.PostForm {
			form[k] = r.PostForm.Get(k)
		}
		f.forms = append(f.forms, form)
		f.headers = append(f.headers, r.Header.Clone())
		w.Header().Set("Content-Type", "application/json")
		if len(f.statuses) > 0 {
			code := f.statuses[0]
			f.statuses = f.statuses[1:]
			w.WriteHeader(code)
			fmt.Fprint(w, `{"error":"temporarily_unavailable"}`)
			return
		}
		if !f.valid[form["refresh_token"]] || form["grant_type"] != "refresh_token" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"invalid_grant","error_description":"refresh token revoked"}`)
			return
		}
		delete(f.valid, form["refresh_token"])
		f.n++
		next := fmt.Sprintf("refresh-%d", f.n)
		f.valid[next] = true
		json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("access-%d", f.n), "refresh_token": next,
			"expires_in": 900, "scope": "kimi-code", "token_type": "Bearer"})
	}))
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeAuth) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.forms)
}

var epoch = time.Unix(1_800_000_000, 0)

// writeToken stores a login whose access token expires in (negative: expired).
func writeToken(t *testing.T, dir string, access, refresh string, in time.Duration) string {
	t.Helper()
	path := filepath.Join(dir, "credentials", FileName("oauth/kimi-code"))
	os.MkdirAll(filepath.Dir(path), 0o700)
	b, _ := json.Marshal(Token{AccessToken: access, RefreshToken: refresh, ExpiresAt: float64(epoch.Add(in).Unix()),
		Scope: "kimi-code", TokenType: "Bearer", ExpiresIn: 900})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func source(path, host string) *Source {
	return &Source{Path: path, Host: host, Now: func() time.Time { return epoch },
		Sleep: func(context.Context, time.Duration) error { return nil }, Headers: map[string]string{"X-Msh-Platform": "kimi_cli"}}
}

func TestFileName(t *testing.T) {
	for key, want := range map[string]string{"oauth/kimi-code": "kimi-code.json", "oauth/a/b": "b.json", "plain": "plain.json"} {
		if got := FileName(key); got != want {
			t.Errorf("FileName(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestFreshTokenIsUsedAsIs(t *testing.T) {
	f, srv := newFakeAuth(t, "r0")
	// Half of the 900 s lifetime is 450 s: a token with 20 minutes left needs no refresh.
	path := writeToken(t, t.TempDir(), "access-0", "r0", 20*time.Minute)
	got, err := source(path, srv.URL).AccessToken(t.Context())
	if err != nil || got != "access-0" || f.requests() != 0 {
		t.Errorf("token %q, err %v, %d refreshes; want the stored token and none", got, err, f.requests())
	}
}

func TestExpiredTokenIsRefreshedAndWrittenBack(t *testing.T) {
	for name, left := range map[string]time.Duration{"expired": -time.Hour, "within the refresh lead": 4 * time.Minute} {
		t.Run(name, func(t *testing.T) {
			f, srv := newFakeAuth(t, "r0")
			path := writeToken(t, t.TempDir(), "access-0", "r0", left)
			got, err := source(path, srv.URL).AccessToken(t.Context())
			if err != nil || got != "access-1" {
				t.Fatalf("token %q, err %v; want the refreshed one", got, err)
			}
			form := f.forms[0]
			if form["grant_type"] != "refresh_token" || form["refresh_token"] != "r0" || form["client_id"] != DefaultClientID {
				t.Errorf("refresh form %v", form)
			}
			if f.headers[0].Get("X-Msh-Platform") != "kimi_cli" {
				t.Errorf("headers %v", f.headers[0])
			}
			stored, err := load(path)
			want := Token{AccessToken: "access-1", RefreshToken: "refresh-1", ExpiresAt: float64(epoch.Add(900 * time.Second).Unix()),
				Scope: "kimi-code", TokenType: "Bearer", ExpiresIn: 900}
			if err != nil || stored != want {
				t.Errorf("stored %+v, %v; want %+v", stored, err, want)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.tmp")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func TestRefusedRefreshIsExpiredForGood(t *testing.T) {
	_, srv := newFakeAuth(t) // accepts no refresh token
	path := writeToken(t, t.TempDir(), "secret-access-0", "secret-refresh-0", -time.Hour)
	_, err := source(path, srv.URL).AccessToken(t.Context())
	if !errors.Is(err, ErrExpired) {
		t.Fatalf("error %v, want ErrExpired", err)
	}
	if strings.Contains(err.Error(), "secret-") || !strings.Contains(err.Error(), "kimi login") {
		t.Errorf("message %q: want no token in it and the way out", err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "secret-refresh-0") {
		t.Error("a refused refresh changed the stored login")
	}
}

func TestTransientRefreshFailures(t *testing.T) {
	t.Run("retried", func(t *testing.T) {
		f, srv := newFakeAuth(t, "r0")
		f.statuses = []int{503, 429}
		path := writeToken(t, t.TempDir(), "access-0", "r0", -time.Hour)
		got, err := source(path, srv.URL).AccessToken(t.Context())
		if err != nil || got != "access-1" || f.requests() != 3 {
			t.Errorf("token %q, err %v after %d requests; want the third to work", got, err, f.requests())
		}
	})
	t.Run("old token still valid", func(t *testing.T) {
		f, srv := newFakeAuth(t, "r0")
		f.statuses = []int{503, 503, 503}
		path := writeToken(t, t.TempDir(), "access-0", "r0", 2*time.Minute)
		got, err := source(path, srv.URL).AccessToken(t.Context())
		if err != nil || got != "access-0" {
			t.Errorf("token %q, err %v; want the old token, good for two more minutes", got, err)
		}
	})
	t.Run("old token expired", func(t *testing.T) {
		f, srv := newFakeAuth(t, "r0")
		f.statuses = []int{503, 503, 503}
		path := writeToken(t, t.TempDir(), "access-0", "r0", -time.Minute)
		_, err := source(path, srv.URL).AccessToken(t.Context())
		if !errors.Is(err, ErrRefresh) || errors.Is(err, ErrExpired) {
			t.Errorf("error %v, want ErrRefresh (temporary)", err)
		}
	})
}

func TestNoStoredLogin(t *testing.T) {
	_, err := source(filepath.Join(t.TempDir(), "kimi-code.json"), "http://127.0.0.1:1").AccessToken(t.Context())
	if !errors.Is(err, ErrNoLogin) {
		t.Errorf("error %v, want ErrNoLogin", err)
	}
}

// TestConcurrentRefreshSpendsTheRefreshTokenOnce: two runs (two cron jobs) find the same
// expired login at once. The host accepts each refresh token once, as Kimi's does; under
// the lock the second run finds the first one's new token instead of spending the old
// refresh token again, so both get the same fresh token and the login survives.
func TestConcurrentRefreshSpendsTheRefreshTokenOnce(t *testing.T) {
	f, srv := newFakeAuth(t, "r0")
	path := writeToken(t, t.TempDir(), "access-0", "r0", -time.Hour)
	const runs = 4
	var wg sync.WaitGroup
	got := make([]string, runs)
	errs := make([]error, runs)
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := source(path, srv.URL)
			s.Sleep = nil // real waits for the lock: the holder needs time to finish
			got[i], errs[i] = s.AccessToken(context.Background())
		}()
	}
	wg.Wait()
	for i := range runs {
		if errs[i] != nil || got[i] != "access-1" {
			t.Errorf("run %d: token %q, err %v; want access-1", i, got[i], errs[i])
		}
	}
	if n := f.requests(); n != 1 {
		t.Errorf("%d refresh requests, want 1", n)
	}
}

// Seen is told every token the source reads or obtains, a refreshed one before the file
// holds it (where a command could read it), so the run scrubs it first (issue 26 #2).
func TestSeenHearsEveryTokenFirst(t *testing.T) {
	_, srv := newFakeAuth(t, "r0")
	path := writeToken(t, t.TempDir(), "access-0", "r0", -time.Hour)
	s := source(path, srv.URL)
	var seen []string
	s.Seen = func(tok Token) {
		onDisk, _ := load(path)
		seen = append(seen, tok.AccessToken+"/"+tok.RefreshToken+" (file: "+onDisk.RefreshToken+")")
	}
	if _, err := s.AccessToken(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{"access-0/r0 (file: r0)", "access-0/r0 (file: r0)", "access-1/refresh-1 (file: r0)"}
	if !slices.Equal(seen, want) {
		t.Errorf("seen %q, want %q", seen, want)
	}
}

// StoredTokens lists the tokens of every login stored in the folder, whether a run uses it
// or not, and passes over what is not a token file.
func TestStoredTokens(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"kimi-code.json": `{"access_token":"a1","refresh_token":"r1"}`,
		"other.json":     `{"refresh_token":"r2"}`,
		"kimi-code.lock": `{"access_token":"no"}`,
		"broken.json":    `{"access_token":`,
	} {
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600)
	}
	got := StoredTokens(dir)
	slices.Sort(got)
	if want := []string{"a1", "r1", "r2"}; !slices.Equal(got, want) {
		t.Errorf("StoredTokens = %q, want %q", got, want)
	}
	if got := StoredTokens(filepath.Join(dir, "missing")); got != nil {
		t.Errorf("a missing folder gave %q", got)
	}
}

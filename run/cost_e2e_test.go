package run_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoCostWithoutPrices: a run that switched to its fallback model and failed, with no
// prices for either model, reports no cost rather than $0.0000.
func TestNoCostWithoutPrices(t *testing.T) {
	t.Parallel()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	r := kimi(t, nil, invocation{env: map[string]string{"KIMI_BASE_URL": down.URL + "/v1"},
		args: []string{"--max-retries", "0", "--fallback-model", "spare", "-p", "x"}})
	if r.code != 75 {
		t.Fatalf("exit %d, want 75\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "cost=") {
		t.Errorf("a cost without prices:\n%s", r.stderr)
	}
}

// TestFailureNamesTheResumeCommand: a failed run's closing line says how to resume its
// session, with the session dir it was given.
func TestFailureNamesTheResumeCommand(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "my sessions")
	r := kimi(t, nil, invocation{env: map[string]string{"KIMI_BASE_URL": "http://127.0.0.1:1/v1"},
		args: []string{"--session-dir", dir, "-S", "night-1", "-p", "x"}})
	if want := `resume="kimi-run --session-dir '` + dir + `' --session night-1"`; r.code != 75 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d; stderr lacks %s:\n%s", r.code, want, r.stderr)
	}
}

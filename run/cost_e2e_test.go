package run_test

import (
	"net/http"
	"net/http/httptest"
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

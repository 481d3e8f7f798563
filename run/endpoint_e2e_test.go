package run_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEndpointMistakesExitTwo: a base URL no retry can make work is a usage error (exit 2)
// at once, naming the setting and where it came from; a server that is down stays exit 75.
func TestEndpointMistakesExitTwo(t *testing.T) {
	t.Parallel()
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "plain", http.StatusInternalServerError)
	}))
	t.Cleanup(plain.Close)
	host := strings.TrimPrefix(plain.URL, "http://")
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + closed.Addr().String() + "/v1"
	closed.Close()
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		want []string
	}{
		{name: "https to a plain-HTTP port", env: map[string]string{"KIMI_BASE_URL": "https://" + host + "/v1"}, code: 2,
			want: []string{"answers in plain HTTP, not TLS", "(from KIMI_BASE_URL)"}},
		{name: "https to a plain-HTTP port by flag", args: []string{"--base-url", "https://" + host + "/v1"}, code: 2,
			want: []string{"answers in plain HTTP, not TLS", "(from --base-url)"}},
		{name: "an empty port", env: map[string]string{"KIMI_BASE_URL": "http://127.0.0.1:/v1"}, code: 2,
			want: []string{`invalid base URL "http://127.0.0.1:/v1" (from KIMI_BASE_URL)`}},
		{name: "a port out of range", args: []string{"--base-url", "http://127.0.0.1:99999/v1"}, code: 2,
			want: []string{`invalid base URL "http://127.0.0.1:99999/v1" (from --base-url)`}},
		{name: "a malformed URL", args: []string{"--base-url", "http://127.0.0.1:8:9/v1"}, code: 2,
			want: []string{"invalid base URL", "(from --base-url)"}},
		{name: "connection refused", env: map[string]string{"KIMI_BASE_URL": down}, code: 75, want: []string{"connection refused"}},
		{name: "5xx", env: map[string]string{"KIMI_BASE_URL": plain.URL + "/v1"}, code: 75, want: []string{"HTTP 500"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := kimi(t, nil, invocation{env: tc.env, args: append(tc.args, "-p", "hi")})
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

package run_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestLoopDefaults: the default step limit and attempts are written once, in agent/; config
// leaves them unset, --help quotes them, and a run that sets nothing makes exactly
// config.DefaultAttempts attempts of a failing call (issue 28 #5).
func TestLoopDefaults(t *testing.T) {
	t.Parallel()
	help := kimi(t, nil, invocation{args: []string{"--help-all"}})
	if help.code != 0 {
		t.Fatalf("--help-all exit %d\n%s", help.code, help.stderr)
	}
	// kong wraps help text: compare with the line breaks and indentation taken out.
	flat := regexp.MustCompile(`\s+`).ReplaceAllString(help.stdout, " ")
	for _, want := range []string{
		"at least 1 (default " + strconv.Itoa(config.DefaultMaxSteps) + ")",
		"Default " + strconv.Itoa(config.DefaultAttempts-1) + ", i.e. " + strconv.Itoa(config.DefaultAttempts) + " attempts",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("--help-all does not say %q", want)
		}
	}

	srv := scripted.New(t, scripted.Status(500, scripted.ErrorBody("server_error", "boom")).Forever())
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "hi"}, srv: srv})
	if r.code != 75 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	retries := testkit.OfType(events(t, r.stdout), "retry")
	if len(retries) != config.DefaultAttempts-1 {
		t.Fatalf("%d retry events, want %d: %v", len(retries), config.DefaultAttempts-1, retries)
	}
	if got := retries[len(retries)-1]["max_attempts"]; got != float64(config.DefaultAttempts) {
		t.Errorf("max_attempts = %v, want %d", got, config.DefaultAttempts)
	}
	if n := len(srv.Requests()); n != config.DefaultAttempts {
		t.Errorf("the server saw %d requests, want %d", n, config.DefaultAttempts)
	}
}

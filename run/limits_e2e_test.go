package run_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/run"
)

// TestZeroLimitsMeanWhatTheySay: --max-steps 0 is a usage error, not the default; and
// --max-retries counts retries after the first attempt, so 0 tries once.
func TestZeroLimitsMeanWhatTheySay(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{name: "no steps", args: []string{"--max-steps", "0"}, want: "--max-steps"},
		{name: "negative steps", args: []string{"--max-steps", "-3"}, want: "--max-steps"},
		{name: "negative retries", args: []string{"--max-retries", "-1"}, want: "--max-retries"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("done"))
			r := kimi(t, srv, invocation{args: append([]string{"-p", "x"}, tt.args...)})
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, want 2 naming %s\n%s", r.code, tt.want, r.stderr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d model calls", n)
			}
		})
	}

	for _, tt := range []struct {
		name     string
		args     []string
		config   string
		requests int
		want     string
	}{
		{name: "no retries", args: []string{"--max-retries", "0"}, requests: 1, want: "after 1 attempt:"},
		{name: "one retry", args: []string{"--max-retries", "1"}, requests: 2, want: "after 2 attempts:"},
		{name: "default", requests: 3, want: "after 3 attempts:"},
		// Kimi CLI's loop_control.max_retries_per_step counts attempts, as it does there.
		{name: "config file", config: "[loop_control]\nmax_retries_per_step = 2\n", requests: 2, want: "after 2 attempts:"},
		{name: "flag beats config file", config: "[loop_control]\nmax_retries_per_step = 5\n", args: []string{"--max-retries", "0"}, requests: 1, want: "after 1 attempt:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Status(503, scripted.ErrorBody("server_error", "busy")).Forever())
			var env map[string]string
			if tt.config != "" {
				env = map[string]string{"HOME": kimiConfig(t, tt.config)}
			}
			r := kimi(t, srv, invocation{env: env, args: append([]string{"-p", "x"}, tt.args...)})
			if r.code != 75 {
				t.Fatalf("exit %d, want 75\n%s", r.code, r.stderr)
			}
			if n := len(srv.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, r.stderr)
			}
		})
	}
}

// TestHelpNamesTheEnvironment: --help is where a newcomer looks for what to export; --help-all
// names every variable kimi-run declares (run.Variables, which
// TestEveryVariableReadIsDeclared holds to what the code reads), and where OpenTelemetry's
// standard ones are told.
func TestHelpNamesTheEnvironment(t *testing.T) {
	t.Parallel()
	r := kimi(t, nil, invocation{args: []string{"--help-all"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"Environment", "KIMI_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "KIMI_MODEL_NAME", "XDG_STATE_HOME", "NO_COLOR", "localhost needs no key",
		"--max-retries", "0 tries once", "--session-wait", "--keep-background", "75 transient"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help-all lacks %q", want)
		}
	}
	env := r.stdout[strings.Index(r.stdout, "Environment"):strings.Index(r.stdout, "Exit codes:")]
	for _, v := range run.Variables() {
		for _, name := range v.Names {
			if !regexp.MustCompile(`(^|[\s,])` + regexp.QuoteMeta(name) + `(,|\s|$)`).MatchString(env) {
				t.Errorf("--help-all's environment lacks %s:\n%s", name, env)
			}
		}
	}
	for _, want := range []string{"OTEL_*", "docs/telemetry.md"} {
		if !strings.Contains(env, want) {
			t.Errorf("--help-all's environment lacks %q:\n%s", want, env)
		}
	}
}

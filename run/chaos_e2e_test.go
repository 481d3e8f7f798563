package run_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestChaos plays seeded episodes of a misbehaving provider (rate limits, 5xx, dropped and
// garbled streams, keep-alive storms, stalls, a slow drip) against the real binary. Every
// episode must end with a valid NDJSON stream whose result matches the exit code, and with
// the answer or the error the script ends in.
func TestChaos(t *testing.T) {
	t.Parallel()
	episodes := 48
	if testing.Short() {
		episodes = 8
	}
	wantCode := map[int]int{200: 0, 400: 1, 401: 5, 403: 5}
	for seed := int64(1); seed <= int64(episodes); seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Parallel()
			c := scripted.Chaos(seed)
			srv := scripted.New(t, c.Responses...)
			r := kimi(t, srv, invocation{args: []string{
				"--output-format", "stream-json", "-p", "survive this",
				"--max-retries", strconv.Itoa(scripted.MaxChaosFailures),
			}})
			if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") {
				t.Fatalf("the run panicked:\n%s", r.stderr)
			}
			if want := wantCode[c.Status]; r.code != want {
				t.Fatalf("exit = %d, want %d after %d failures\n%s\n%s", r.code, want, c.Failures, r.stdout, r.stderr)
			}
			res := lastResult(t, r)
			if c.Status == 200 && res["final_text"] != c.Answer {
				t.Errorf("final_text = %q, want %q", res["final_text"], c.Answer)
			}
			retries := len(testkit.OfType(events(t, r.stdout), "retry"))
			if c.Status == 200 && retries != c.Failures {
				t.Errorf("%d retry events for %d transient failures", retries, c.Failures)
			}
		})
	}
}

package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// recording loads a real provider recording from testdata/providers (sources in its
// README), replayed over loopback HTTP by the scripted server.
func recording(t *testing.T, name string) []scripted.Response {
	t.Helper()
	return scripted.Load(t, filepath.Join("..", "testdata", "providers", name+".txtar"))
}

// failure runs the binary against script in both output formats and checks the exit code,
// the terminal reason and error kind, and that stderr says why.
func failure(t *testing.T, script []scripted.Response, args []string, code int, reason, kind, stderr string, requests int) {
	t.Helper()
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, script...)
			r := kimi(t, srv, invocation{args: append([]string{"--output-format", format, "-p", "do it"}, args...), srv: srv})
			if r.code != code {
				t.Fatalf("exit = %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
			}
			if n := len(srv.Requests()); n != requests {
				t.Errorf("%d requests, want %d", n, requests)
			}
			if !strings.Contains(r.stderr, stderr) {
				t.Errorf("stderr lacks %q:\n%s", stderr, r.stderr)
			}
			if format == "text" {
				if r.stdout != "" {
					t.Errorf("stdout of a failed run = %q", r.stdout)
				}
				return
			}
			res := lastResult(t, r)
			e, _ := res["error"].(map[string]any)
			if res["terminal_reason"] != reason || e == nil || e["kind"] != kind || e["retryable"] != false {
				t.Errorf("result = %v", res)
			}
			if msg, _ := e["message"].(string); !strings.Contains(msg, stderr) {
				t.Errorf("error message = %q, want %q in it", msg, stderr)
			}
			if n := len(testkit.OfType(events(t, r.stdout), "retry")); n != 0 {
				t.Errorf("%d retry events for a failure no retry can fix", n)
			}
		})
	}
}

// A content filter (or any finish_reason but stop, tool_calls and length) ends the run with
// exit 8: the cut-off text is not an answer and never reaches stdout as one.
func TestFinishReasonFiltered(t *testing.T) {
	t.Parallel()
	for _, reason := range []string{"content_filter", "insufficient_system_resource"} {
		t.Run(reason, func(t *testing.T) {
			failure(t, []scripted.Response{scripted.Reply(scripted.Say("The answer is"), scripted.Finish(reason)).Forever()},
				nil, 8, "filtered", "filtered", reason, 1)
		})
	}
}

// Quota exhaustion (Moonshot's exceeded_current_quota_error, OpenAI's insufficient_quota;
// documented shapes in testdata/providers/quota-429.txtar) is exit 5 `quota`, tried once.
func TestQuotaExit(t *testing.T) {
	t.Parallel()
	rs := recording(t, "quota-429")
	t.Run("moonshot", func(t *testing.T) {
		failure(t, []scripted.Response{rs[0].Forever()}, nil, 5, "quota", "quota", "billing details [exceeded_current_quota_error]", 1)
	})
	t.Run("openai", func(t *testing.T) {
		failure(t, []scripted.Response{rs[1].Forever()}, nil, 5, "quota", "quota", "exceeded your current quota", 1)
	})
}

// HTTP 501 is not retried: Kimi CLI retries 429, 500, 502, 503 and 504 only
// (/work/shared/reference/kimi-cli.md, "Retry").
func TestNotImplementedNotRetried(t *testing.T) {
	t.Parallel()
	failure(t, []scripted.Response{scripted.Status(501, scripted.ErrorBody("not_implemented", "streaming is not supported")).Forever()},
		nil, 1, "error", "provider", "streaming is not supported", 1)
}

// A web page where the API should be (HTTP 200, text/html) is a configuration error: exit
// 1 at once, one line that says the base URL looks wrong, none of the page.
func TestWebPageBaseURL(t *testing.T) {
	t.Parallel()
	failure(t, []scripted.Response{scripted.Page("<!DOCTYPE html><html><head><title>Console</title></head><body>Sign in</body></html>").Forever()},
		nil, 1, "error", "config", "base URL looks wrong", 1)
	srv := scripted.New(t, scripted.Page("<html><body>Sign in</body></html>"))
	r := kimi(t, srv, invocation{args: []string{"-p", "hi"}, srv: srv})
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		if strings.Contains(line, "Sign in") {
			t.Errorf("stderr repeats the page: %q", line)
		}
	}
}

// Budgets count what the provider reports wherever it puts it: with usage only inside the
// finishing choice (Moonshot), 9900+100 tokens a step stop a 27000-token budget after the
// third call (the prompt, tools included, is estimated well under the 7000 left before it),
// where the bytes-per-token estimate would have let the run go on.
func TestBudgetCountsUsageInChoice(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Reply(scripted.UsageInChoice(), scripted.Usage(9900, 100, 0),
		scripted.Call("Shell", `{"command":"true"}`)).Forever())
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--max-tokens-total", "27000", "-p", "keep going"}, srv: srv})
	if r.code != 6 {
		t.Fatalf("exit = %d, want 6\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d model calls, want 3", n)
	}
	res := lastResult(t, r)
	u, _ := res["usage"].(map[string]any)
	if u["input_tokens"] != 29700.0 || u["output_tokens"] != 300.0 || res["terminal_reason"] != "budget" {
		t.Errorf("result = %v", res)
	}
	for _, ev := range testkit.OfType(events(t, r.stdout), "usage") {
		if ev["input_tokens"] != 9900.0 || ev["output_tokens"] != 100.0 {
			t.Errorf("usage event = %v", ev)
		}
	}
}

// The stderr line counts retries as --max-retries does: with --max-retries 2 they are
// "retry 1/2" and "retry 2/2" (the event keeps its attempt of max_attempts meaning).
func TestRetryLineCountsRetries(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Status(500, scripted.ErrorBody("server_error", "boom")).Forever())
	r := kimi(t, srv, invocation{args: []string{"--max-retries", "2", "-p", "hi"}, srv: srv})
	if r.code != 75 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "retry 1/2") || !strings.Contains(r.stderr, "retry 2/2") || strings.Contains(r.stderr, "/3") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	srv = scripted.New(t, scripted.Status(500, scripted.ErrorBody("server_error", "boom")).Forever())
	r = kimi(t, srv, invocation{args: []string{"--max-retries", "2", "--output-format", "stream-json", "-p", "hi"}, srv: srv})
	retries := testkit.OfType(events(t, r.stdout), "retry")
	if len(retries) != 2 || retries[0]["attempt"] != 1.0 || retries[1]["attempt"] != 2.0 || retries[1]["max_attempts"] != 3.0 {
		t.Errorf("retry events = %v", retries)
	}
}

// No retry event or line announces an attempt that never happens: once --timeout fired or
// a signal came, a failed call is not retried and nothing says it will be.
func TestNoRetryAfterStop(t *testing.T) {
	t.Parallel()
	slow500 := scripted.Status(500, scripted.ErrorBody("server_error", "late")).DelayHeaders(3 * time.Second).Forever()
	tests := []struct {
		name    string
		script  []scripted.Response
		timeout bool // --timeout, from 300ms up
		signal  os.Signal
		code    int
	}{
		{name: "timeout while headers are awaited", script: []scripted.Response{slow500}, timeout: true, code: 124},
		{name: "timeout mid-stream", script: []scripted.Response{scripted.Reply(scripted.Say("half"), scripted.Hang()).Forever()}, timeout: true, code: 124},
		{name: "SIGTERM mid-stream", script: []scripted.Response{scripted.Reply(scripted.Say("half"), scripted.Hang()).Forever()}, signal: syscall.SIGTERM, code: 143},
		{name: "SIGINT while headers are awaited", script: []scripted.Response{slow500}, signal: os.Interrupt, code: 130},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Signalled while no event can come (the headers are awaited), the run is
			// watched in text mode: the server having the request is the cue.
			format := "stream-json"
			if tt.signal != nil && strings.Contains(tt.name, "headers") {
				format = "text"
			}
			// A --timeout that fired before the request reached the server (a loaded
			// machine) proves nothing: the run is tried again with a longer one, still
			// shorter than the slow server's 3 s.
			var (
				srv *scripted.Server
				r   result
			)
			for _, timeout := range []string{"300ms", "1s", "2s"} {
				srv = scripted.New(t, tt.script...)
				args := []string{"--output-format", format, "-p", "wait"}
				if tt.timeout {
					args = append(args, "--timeout", timeout)
				}
				r = kimi(t, srv, invocation{args: args, signal: tt.signal, srv: srv})
				if !tt.timeout || len(srv.Requests()) > 0 {
					break
				}
				t.Logf("--timeout %s fired before the request reached the server; trying a longer one", timeout)
			}
			if r.code != tt.code {
				t.Fatalf("exit = %d, want %d\n%s\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			if format == "stream-json" {
				if n := len(testkit.OfType(events(t, r.stdout), "retry")); n != 0 {
					t.Errorf("%d retry events after the run was stopped", n)
				}
			}
			if strings.Contains(r.stderr, "retry ") {
				t.Errorf("stderr announces a retry:\n%s", r.stderr)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

package run_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// spend is a reply that reports 10000 prompt and 1000 completion tokens. Every prompt of a
// run is estimated at over 1000 tokens: the system prompt and tool definitions alone are.
func spend(parts ...scripted.Part) scripted.Response {
	return scripted.Reply(append(parts, scripted.Usage(10000, 1000, 0))...)
}

func TestTokenBudgetEndsTheRunResumably(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	// Two calls spend 22000 tokens; the third call's prompt does not fit in the 1000 left.
	srv := scripted.New(t,
		spend(scripted.Call("Shell", `{"command":"echo one > one.txt"}`)),
		spend(scripted.Call("Shell", `{"command":"echo two > two.txt"}`)),
		scripted.Text("Both files are written."),
	)
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--output-format", "stream-json",
		"--session", "budgeted", "--max-tokens-total", "23000", "-p", "write two files")})
	if r.code != 6 {
		t.Fatalf("exit = %d, want 6\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	res := lastResult(t, r)
	e, _ := res["error"].(map[string]any)
	if res["terminal_reason"] != "budget" || res["status"] != "error" || e["kind"] != "budget" || e["retryable"] != false {
		t.Errorf("result = %v", res)
	}
	if msg, _ := e["message"].(string); !strings.Contains(msg, "22000 of 23000") {
		t.Errorf("error message = %q", msg)
	}
	if !strings.Contains(r.stderr, "token budget") {
		t.Errorf("stderr does not say why:\n%s", r.stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("server got %d requests, want 2", n)
	}
	for _, ev := range events(t, r.stdout) {
		if ev["type"] == "retry" {
			t.Errorf("the budget error was retried: %v", ev)
		}
	}
	// The work done so far is in the session: resumed with a bigger budget, the model sees it.
	r = kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--session", "budgeted",
		"--max-tokens-total", "100000", "-p", "go on")})
	if r.code != 0 {
		t.Fatalf("resumed run: exit %d\n%s", r.code, r.stderr)
	}
	got := strings.Join(contents(srv, 2), "\n")
	for _, want := range []string{"user: write two files", "tool: Command succeeded", "user: go on"} {
		if !strings.Contains(got, want) {
			t.Errorf("resumed request lacks %q:\n%s", want, got)
		}
	}
	if raw := string(srv.Requests()[2].Raw); !strings.Contains(raw, `"name":"Shell","arguments":"{\"command\":\"echo two`) {
		t.Errorf("resumed request lacks the second tool call:\n%s", raw)
	}
}

func TestTokenBudgetCoversSubagents(t *testing.T) {
	t.Parallel()
	// The parent delegates; the subagent's call spends from the same budget, so the
	// parent's next call is refused.
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv := scripted.New(t,
				spend(scripted.Call("Agent", `{"description":"look","prompt":"find the parser","subagent_type":"coder"}`)),
				spend(scripted.Say("The parser is in parse.go.")),
				scripted.Text("never sent"),
			)
			r := kimi(t, srv, invocation{args: []string{"--output-format", format, "--max-tokens-total", "23000", "-p", "delegate"}})
			if r.code != 6 {
				t.Fatalf("exit = %d, want 6\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("server got %d requests, want 2", n)
			}
			if format == "text" {
				if !strings.Contains(r.stderr, "the token, cost or tool-call budget ran out") || !strings.Contains(r.stderr, "exit_code=6") {
					t.Errorf("stderr does not say why:\n%s", r.stderr)
				}
				return
			}
			if res := lastResult(t, r); res["terminal_reason"] != "budget" {
				t.Errorf("result = %v", res)
			}
		})
	}
}

func TestCostBudget(t *testing.T) {
	t.Parallel()
	prices := []string{"--price-input", "2", "--price-cached-input", "0.5", "--price-output", "10"}
	// One call: (6000*2 + 4000*0.5 + 1000*10) / 1e6 = $0.024. The next prompt, over 1000
	// tokens, costs more than the $0.001 left under a $0.025 cap.
	call := func(parts ...scripted.Part) scripted.Response {
		return scripted.Reply(append(parts, scripted.Usage(10000, 1000, 4000))...)
	}
	t.Run("cap reached", func(t *testing.T) {
		srv := scripted.New(t, call(scripted.Call("Shell", `{"command":"true"}`)), scripted.Text("never sent"))
		args := append([]string{"--output-format", "stream-json", "--max-cost-usd", "0.025", "-p", "work"}, prices...)
		r := kimi(t, srv, invocation{args: args})
		if r.code != 6 {
			t.Fatalf("exit = %d, want 6\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		res := lastResult(t, r)
		if res["terminal_reason"] != "budget" {
			t.Errorf("result = %v", res)
		}
		if got := costOf(t, res); math.Abs(got-0.024) > 1e-9 {
			t.Errorf("cost_usd = %v, want 0.024", got)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("server got %d requests, want 1", n)
		}
	})
	t.Run("prices from the config file", func(t *testing.T) {
		srv := scripted.New(t, call(scripted.Say("Done.")))
		home := kimiConfig(t, `
default_model = "priced"
[providers.local]
type = "kimi"
base_url = "`+srv.URL()+`"
[models.priced]
provider = "local"
model = "test-model"
max_context_size = 100000
price_input = 2
price_cached_input = 0.5
price_output = 10
`)
		r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "work"},
			env: map[string]string{"HOME": home, "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": ""}})
		if r.code != 0 {
			t.Fatalf("exit = %d\n%s", r.code, r.stderr)
		}
		if got := costOf(t, lastResult(t, r)); math.Abs(got-0.024) > 1e-9 {
			t.Errorf("cost_usd = %v, want 0.024", got)
		}
	})
	t.Run("text summary", func(t *testing.T) {
		srv := scripted.New(t, call(scripted.Say("Done.")))
		r := kimi(t, srv, invocation{args: append([]string{"-p", "work"}, prices...)})
		if r.code != 0 || !strings.Contains(r.stderr, "cost=$0.0240") {
			t.Errorf("exit %d, stderr lacks the cost:\n%s", r.code, r.stderr)
		}
	})
	t.Run("no prices", func(t *testing.T) {
		r := kimi(t, nil, invocation{args: []string{"--max-cost-usd", "1", "-p", "work"}})
		if r.code != 2 || !strings.Contains(r.stderr, "--price-input") {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})
	t.Run("unpriced runs report no cost", func(t *testing.T) {
		srv := scripted.New(t, scripted.Text("Done."))
		r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-p", "work"}})
		usage, _ := lastResult(t, r)["usage"].(map[string]any)
		if _, ok := usage["cost_usd"]; ok {
			t.Errorf("usage = %v, want no cost_usd without prices", usage)
		}
	})
}

func costOf(t *testing.T, res map[string]any) float64 {
	t.Helper()
	usage, _ := res["usage"].(map[string]any)
	c, ok := usage["cost_usd"].(float64)
	if !ok {
		t.Fatalf("result usage has no cost_usd: %v", usage)
	}
	return c
}

package run_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// overloaded is a provider's "try again later" answer (Anthropic's 529 shape).
var overloaded = scripted.Status(529, scripted.ErrorBody("overloaded_error", "the engine is overloaded"))

// modelsAsked lists the model of each request srv received.
func modelsAsked(srv *scripted.Server) []string {
	var got []string
	for _, req := range srv.Requests() {
		m, _ := req.Body["model"].(string)
		got = append(got, m)
	}
	return got
}

// TestFallbackChain: the models of --fallback-model (repeatable, comma-separated, or
// fallback_models in the config file) are tried in order, each once the one before it
// kept failing transiently after its retries; each switch is a model_fallback event and a
// warning (issue 32 #6).
func TestFallbackChain(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		home string // config.toml text
	}{
		{name: "repeated flag", args: []string{"--fallback-model", "spare-a", "--fallback-model", "spare-b"}},
		{name: "comma-separated", args: []string{"--fallback-model", "spare-a,spare-b"}},
		{name: "config key", home: `fallback_models = ["spare-a", "spare-b"]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
				if req.Body["model"] == "spare-b" {
					return scripted.Text("Done on the second fallback.")
				}
				return overloaded
			})
			inv := invocation{args: append([]string{"--output-format", "stream-json", "--max-retries", "1"}, append(tt.args, "-p", "x")...)}
			if tt.home != "" {
				inv.env = map[string]string{"HOME": kimiConfig(t, tt.home)}
			}
			r := kimi(t, srv, inv)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			want := "test-model,test-model,spare-a,spare-a,spare-b"
			if got := strings.Join(modelsAsked(srv), ","); got != want {
				t.Errorf("models asked = %s, want %s", got, want)
			}
			evs := events(t, r.stdout)
			var hops []string
			for _, e := range testkit.OfType(evs, "model_fallback") {
				hops = append(hops, fmt.Sprintf("%v>%v@%v", e["from"], e["to"], e["step"]))
			}
			if got := strings.Join(hops, " "); got != "test-model>spare-a@1 spare-a>spare-b@1" {
				t.Errorf("model_fallback events = %s", got)
			}
			if n := len(testkit.OfType(evs, "warning")); n != 2 {
				t.Errorf("%d warnings, want one per switch\n%s", n, r.stdout)
			}
			if res := lastResult(t, r); res["final_text"] != "Done on the second fallback." {
				t.Errorf("final_text = %v", res["final_text"])
			}
		})
	}
}

// TestFallbackChainRunsOut: when the last model of the chain fails too, the run ends as a
// transient failure (75), having tried every model once with its retries.
func TestFallbackChainRunsOut(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, overloaded.Forever())
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--max-retries", "0", "--fallback-model", "a,b,c", "-p", "x"}})
	if r.code != 75 {
		t.Fatalf("exit %d, want 75\n%s", r.code, r.stderr)
	}
	if got := strings.Join(modelsAsked(srv), ","); got != "test-model,a,b,c" {
		t.Errorf("models asked = %s", got)
	}
	if n := len(testkit.OfType(events(t, r.stdout), "model_fallback")); n != 3 {
		t.Errorf("%d model_fallback events, want 3", n)
	}
}

// TestFallbackToAnotherProvider: a fallback naming a [models] entry of another provider
// goes to that provider's endpoint with that provider's key and model id, and is priced
// at its own prices; neither key reaches the other endpoint, stdout or stderr.
func TestFallbackToAnotherProvider(t *testing.T) {
	t.Parallel()
	const spareKey = "sk-spare-provider-5ecret-987654321"
	main := scripted.New(t, overloaded.Forever())
	spare := scripted.New(t, scripted.Reply(scripted.Say("Answered by the spare."), scripted.Usage(1000, 100, 0)))
	home := kimiConfig(t, `
[models.spare]
provider = "elsewhere"
model = "spare-model-id"
max_context_size = 32000
price_input = 10
price_output = 20

[providers.elsewhere]
type = "openai_legacy"
base_url = "`+spare.URL()+`"
api_key = "`+spareKey+`"
`)
	r := kimi(t, main, invocation{env: map[string]string{"HOME": home},
		args: []string{"--output-format", "stream-json", "--max-retries", "0", "--price-input", "1", "--price-output", "2", "--fallback-model", "spare", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, req := range main.Requests() {
		if got := req.Header.Get("Authorization"); got != "Bearer "+testKey {
			t.Errorf("the run's endpoint got Authorization %q", got)
		}
	}
	reqs := spare.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the spare provider got %d requests, want 1", len(reqs))
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer "+spareKey {
		t.Errorf("the spare provider got Authorization %q, want its own key", got)
	}
	if reqs[0].Body["model"] != "spare-model-id" {
		t.Errorf("the spare provider was asked for model %v", reqs[0].Body["model"])
	}
	evs := events(t, r.stdout)
	fb := testkit.OfType(evs, "model_fallback")
	if len(fb) != 1 || fb[0]["to"] != "spare" || fb[0]["provider"] != "openai_legacy" || fb[0]["from"] != "test-model" {
		t.Errorf("model_fallback = %v", fb)
	}
	res := lastResult(t, r)
	usage, _ := res["usage"].(map[string]any)
	// 1000 input tokens at $10 and 100 output tokens at $20 per million: the spare's prices.
	if cost, ok := usage["cost_usd"].(float64); !ok || math.Abs(cost-0.012) > 1e-9 {
		t.Errorf("cost_usd = %v, want 0.012 (the spare's prices)", usage["cost_usd"])
	}
	for name, s := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		if strings.Contains(s, spareKey) {
			t.Errorf("%s holds the spare provider's key", name)
		}
	}
}

// TestCompactionFallsBack: a compaction whose summary keeps failing transiently asks for it
// on the fallback model, as a step would, instead of dropping the oldest messages.
func TestCompactionFallsBack(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	first := scripted.New(t, scripted.Reply(scripted.Say("The parser lives in parse.go."), scripted.Usage(1800, 10, 0)))
	if r := kimi(t, first, invocation{dir: work, args: sessionArgs(sessions, "--session", "s1", "-p", "where is the parser?")}); r.code != 0 {
		t.Fatalf("run 1: %d %s", r.code, r.stderr)
	}
	srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		if req.Body["model"] == "test-model" {
			return overloaded
		}
		if _, tools := req.Body["tools"]; !tools {
			return scripted.Text("<current_focus>Writing parser tests.</current_focus>")
		}
		return scripted.Text("Tests written.")
	})
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--output-format", "stream-json", "--session", "s1",
		"--max-context-size", "2000", "--max-retries", "1", "--fallback-model", "spare", "-p", "write tests")})
	if r.code != 0 {
		t.Fatalf("run 2: %d %s", r.code, r.stderr)
	}
	if got := strings.Join(modelsAsked(srv), ","); got != "test-model,test-model,spare,spare" {
		t.Errorf("models asked = %s, want the summary twice on test-model, then on spare, then the step", got)
	}
	evs := events(t, r.stdout)
	fb := testkit.OfType(evs, "model_fallback")
	if len(fb) != 1 || fb[0]["step"] != float64(0) {
		t.Errorf("model_fallback = %v, want one, for the compaction (step 0)", fb)
	}
	ends := testkit.OfType(evs, "compaction_end")
	if len(ends) != 1 || ends[0]["fallback"] == true {
		t.Errorf("compaction_end = %v, want a summary, not the dropping of messages", ends)
	}
}

// TestFallbackRefusedAtStart: a fallback the run could not use is a usage error before any
// model call, naming the fallback and why, rather than a surprise when the run needs it.
func TestFallbackRefusedAtStart(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, conf string
		args       []string
		want       string
	}{
		{name: "protocol not spoken", conf: `
[models.odd]
provider = "odd"
[providers.odd]
type = "carrier_pigeon"
base_url = "http://127.0.0.1:1/v1"
api_key = "k"
`, args: []string{"--fallback-model", "odd"}, want: `type "carrier_pigeon", which kimi-run does not speak`},
		{name: "another provider's login", conf: `
[models.k]
provider = "kimi-code"
[providers.kimi-code]
type = "kimi"
base_url = "http://127.0.0.1:1/v1"
api_key = ""
oauth = { storage = "file", key = "oauth/kimi-code" }
`, args: []string{"--fallback-model", "k"}, want: `fallback model "k": its provider "kimi-code" signs in with a stored kimi login`},
		{name: "cost cap without the fallback's prices", args: []string{"--max-cost-usd", "1", "--price-input", "1", "--price-output", "1", "--fallback-model", "spare"},
			want: `fallback model "spare" has none`},
		{name: "empty name", args: []string{"--fallback-model", ""}, want: "--fallback-model names an empty model"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t)
			env := map[string]string{"HOME": kimiConfig(t, tt.conf)}
			if strings.Contains(tt.conf, "oauth") {
				env["KIMI_API_KEY"] = "" // a kimi provider's login is used only without the variable
				env["OPENAI_API_KEY"] = testKey
				env["OPENAI_BASE_URL"] = srv.URL()
				env["KIMI_BASE_URL"] = ""
			}
			r := kimi(t, srv, invocation{env: env, args: append(tt.args, "-p", "x")})
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr does not say %q:\n%s", tt.want, r.stderr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d model calls before the usage error", n)
			}
		})
	}
}

// TestFallbackAcrossProtocols: the fallback may speak another wire protocol than the run's
// model (issue 32 #6 with issue 30's providers): a conversation begun in chat completions,
// with a tool call and its result, goes on in each protocol kimi-run speaks.
func TestFallbackAcrossProtocols(t *testing.T) {
	t.Parallel()
	eachProtocol(t, func(t *testing.T, typ string) {
		main := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
			if len(req.MessagesOf("tool")) == 0 {
				return scripted.ToolCalls(scripted.Call("SetTodoList", `{"todos":[{"title":"x-marks-the-spot","status":"pending"}]}`))
			}
			return overloaded
		})
		spare := scripted.New(t, scripted.Text("Finished on the spare."))
		provider := typ
		if typ == "kimi" {
			// A kimi provider's endpoint is KIMI_BASE_URL's when it is set, as in Kimi CLI,
			// and the run's own model comes from there: chat completions of another provider.
			provider = "openai_legacy"
		}
		home := kimiConfig(t, fmt.Sprintf(`
[models.spare]
provider = "other"
model = "test-model"

[providers.other]
type = %q
base_url = %q
api_key = "sk-other-protocol-key-12345678"
`, provider, spare.URL()))
		r := kimi(t, main, invocation{env: map[string]string{"HOME": home},
			args: []string{"--output-format", "stream-json", "--max-retries", "0", "--fallback-model", "spare", "-p", "x"}})
		if r.code != 0 {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		checkPaths(t, typ, spare)
		reqs := spare.Requests()
		if len(reqs) != 1 {
			t.Fatalf("the spare got %d requests", len(reqs))
		}
		body, _ := json.Marshal(reqs[0].Body)
		if !strings.Contains(string(body), "x-marks-the-spot") {
			t.Errorf("the spare's request lacks the earlier tool call:\n%s", body)
		}
		if res := lastResult(t, r); res["final_text"] != "Finished on the spare." {
			t.Errorf("final_text = %v", res["final_text"])
		}
	})
}

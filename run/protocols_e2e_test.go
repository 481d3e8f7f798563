package run_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/model/protocols"
)

// Everything that works for chat completions works for every wire protocol (issue 30): the
// tests of this file run each feature once per protocol of model/protocols (by its Name, a
// provider type), through a Kimi config.toml whose provider has that type, against the
// scripted server, which speaks the protocol a request's path asks for (internal/scripted:
// the same script, rendered in each protocol's stream shape). A protocol joins by its row
// in that table.
var wireProtocols = func() []string {
	var names []string
	for _, p := range protocols.All {
		names = append(names, p.Name)
	}
	return names
}()

// protocolEnv is the environment of a run whose default model "m" (model id test-model)
// is served by srv through a provider of type typ; modelKeys are added to the model's
// table (prices, max_context_size), top to the file's top level.
func protocolEnv(t *testing.T, typ string, srv *scripted.Server, top, modelKeys string) map[string]string {
	t.Helper()
	url := "http://127.0.0.1:1/v1"
	if srv != nil {
		url = srv.URL()
	}
	home := kimiConfig(t, fmt.Sprintf(`%s
default_model = "m"

[models.m]
provider = "p"
model = "test-model"
%s

[providers.p]
type = %q
base_url = %q
api_key = %q
`, top, modelKeys, typ, url, testKey))
	return map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": ""}
}

// eachProtocol runs f once per wire protocol, in parallel.
func eachProtocol(t *testing.T, f func(t *testing.T, typ string)) {
	t.Helper()
	for _, typ := range wireProtocols {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			f(t, typ)
		})
	}
}

// runProto runs kimi-run with the protocol's config against srv, and checks that every
// request went to the protocol's path.
func runProto(t *testing.T, typ string, srv *scripted.Server, modelKeys string, args ...string) result {
	t.Helper()
	r := kimi(t, nil, invocation{env: protocolEnv(t, typ, srv, "", modelKeys), args: args})
	checkPaths(t, typ, srv)
	return r
}

// checkPaths checks that every request went to the path of typ's protocol.
func checkPaths(t *testing.T, typ string, srv *scripted.Server) {
	t.Helper()
	proto, _ := protocols.Lookup(typ)
	want := strings.ReplaceAll(proto.Path, "MODEL", "test-model")
	for i, req := range srv.Requests() {
		if !strings.HasSuffix(req.Path, want) && req.Model() == "test-model" {
			t.Errorf("request %d went to %s, want …%s", i+1, req.Path, want)
		}
	}
}

// Every way a run ends, with its exit code, terminal reason and the number of requests
// made: retries and their exit codes are the protocol's business only in how the failure
// arrives.
func TestProtocolExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		script   []scripted.Response
		args     []string
		code     int
		reason   string
		stderr   string
		requests int
	}{
		{name: "completed", script: []scripted.Response{scripted.Text("All done.")}, code: 0, reason: "completed", requests: 1},
		{name: "400", script: []scripted.Response{scripted.Status(400, `{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}`)},
			code: 1, reason: "error", stderr: "invalid argument", requests: 1},
		{name: "401", script: []scripted.Response{scripted.Status(401, `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`)},
			code: 5, reason: "auth", stderr: "401", requests: 1},
		{name: "500 forever", script: []scripted.Response{scripted.Status(500, `{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}`).Forever()},
			args: []string{"--max-retries", "1"}, code: 75, reason: "transient", stderr: "500", requests: 2},
		{name: "429 forever", script: []scripted.Response{scripted.Status(429, `{"error":{"code":429,"message":"Resource exhausted.","status":"RESOURCE_EXHAUSTED"}}`).Header("Retry-After", "30").Forever()},
			code: 75, reason: "transient", stderr: "429", requests: 3},
		{name: "503 then an answer", script: []scripted.Response{scripted.Status(503, `{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`), scripted.Text("All done.")},
			code: 0, reason: "completed", requests: 2},
		{name: "stream cut forever", script: []scripted.Response{scripted.Reply(scripted.Say("half an ans"), scripted.Cut()).Forever()},
			code: 75, reason: "transient", stderr: "complete", requests: 3},
		{name: "content filter", script: []scripted.Response{scripted.Reply(scripted.Say("I cannot"), scripted.Finish("content_filter"))},
			code: 8, reason: "filtered", requests: 1},
		{name: "max steps", script: []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{"command":"true"}`)).Forever()},
			args: []string{"--max-steps", "2"}, code: 3, reason: "max_steps", requests: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			eachProtocol(t, func(t *testing.T, typ string) {
				srv := scripted.New(t, tt.script...)
				r := runProto(t, typ, srv, "", append([]string{"--output-format", "stream-json", "-p", "do the task"}, tt.args...)...)
				if r.code != tt.code {
					t.Fatalf("exit = %d, want %d\n%s\n%s", r.code, tt.code, r.stdout, r.stderr)
				}
				if res := lastResult(t, r); res["terminal_reason"] != tt.reason {
					t.Errorf("terminal_reason = %v, want %s", res["terminal_reason"], tt.reason)
				}
				if tt.stderr != "" && !strings.Contains(r.stderr, tt.stderr) {
					t.Errorf("stderr lacks %q:\n%s", tt.stderr, r.stderr)
				}
				if n := len(srv.Requests()); n != tt.requests {
					t.Errorf("%d requests, want %d", n, tt.requests)
				}
			})
		})
	}
}

// A step with thinking, text and a tool call, then the answer: the events, the tool's
// effect, and what went back to the provider (the call, and its result answering it).
func TestProtocolToolStep(t *testing.T) {
	t.Parallel()
	eachProtocol(t, func(t *testing.T, typ string) {
		srv := scripted.New(t,
			scripted.Reply(scripted.Think("I should write the file."), scripted.Say("Writing it."),
				scripted.Call("WriteFile", `{"path":"out.txt","content":"hello\n"}`), scripted.Usage(120, 30, 0)),
			scripted.Reply(scripted.Say("Done."), scripted.Usage(160, 5, 100)))
		dir := t.TempDir()
		r := kimi(t, nil, invocation{dir: dir, env: protocolEnv(t, typ, srv, "", ""), args: []string{"--output-format", "stream-json", "-p", "write out.txt"}})
		checkPaths(t, typ, srv)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if got, err := os.ReadFile(filepath.Join(dir, "out.txt")); string(got) != "hello\n" {
			t.Errorf("out.txt = %q, %v", got, err)
		}
		evs := events(t, r.stdout)
		var thinking strings.Builder
		for _, e := range testkit.OfType(evs, "thinking") {
			thinking.WriteString(e["delta"].(string))
		}
		if thinking.String() != "I should write the file." {
			t.Errorf("thinking = %q", thinking.String())
		}
		call := testkit.Last(evs, "tool_call")
		if call == nil || call["name"] != "WriteFile" {
			t.Fatalf("tool_call = %v", call)
		}
		res := lastResult(t, r)
		if res["final_text"] != "Done." || res["tool_calls"] != 1.0 {
			t.Errorf("result = %v", res)
		}
		usage, _ := res["usage"].(map[string]any)
		if usage["input_tokens"] != 280.0 || usage["output_tokens"] != 35.0 || usage["cached_tokens"] != 100.0 {
			t.Errorf("usage = %v", usage)
		}
		msgs := srv.Requests()[1].Messages()
		var sent, answered any
		for _, m := range msgs {
			if calls, ok := m["tool_calls"].([]any); ok && m["role"] == "assistant" {
				c := calls[0].(map[string]any)
				if c["function"].(map[string]any)["name"] != "WriteFile" {
					t.Errorf("call sent back = %v", c)
				}
				sent = c["id"]
			}
			if m["role"] == "tool" {
				answered = m["tool_call_id"]
			}
		}
		if sent == nil || sent != answered || sent != call["id"] {
			t.Errorf("call %v sent back as %v, answered as %v\n%v", call["id"], sent, answered, msgs)
		}
	})
}

// Cost and the token budget come from the provider's own counts (cached input at its
// price), whatever shape they came in.
func TestProtocolCostAndBudget(t *testing.T) {
	t.Parallel()
	const prices = "price_input = 2\nprice_cached_input = 0.5\nprice_output = 10\nmax_context_size = 100000"
	call := func(parts ...scripted.Part) scripted.Response {
		return scripted.Reply(append(parts, scripted.Usage(10000, 1000, 4000))...)
	}
	eachProtocol(t, func(t *testing.T, typ string) {
		// One call: (6000*2 + 4000*0.5 + 1000*10) / 1e6 = $0.024; the next prompt does not
		// fit in the $0.001 left under $0.025.
		srv := scripted.New(t, call(scripted.Call("Shell", `{"command":"true"}`)), scripted.Text("never sent"))
		r := runProto(t, typ, srv, prices, "--output-format", "stream-json", "--max-cost-usd", "0.025", "-p", "work")
		if r.code != 6 {
			t.Fatalf("exit = %d, want 6\n%s", r.code, r.stderr)
		}
		if got := costOf(t, lastResult(t, r)); math.Abs(got-0.024) > 1e-9 {
			t.Errorf("cost_usd = %v, want 0.024", got)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
}

// A stalled stream is abandoned and asked again; a run that cannot finish ends at
// --timeout; a reply that never stops is cut at --max-reply-bytes and, every attempt cut,
// ends as a transient failure.
func TestProtocolStallTimeoutAndCap(t *testing.T) {
	t.Parallel()
	eachProtocol(t, func(t *testing.T, typ string) {
		t.Run("stall", func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Reply(scripted.Say("I will"), scripted.Hang()), scripted.Text("second attempt"))
			r := runProto(t, typ, srv, "", "--output-format", "stream-json", "--stream-idle-timeout", "3s", "--timeout", "2m", "-p", "x")
			if r.code != 0 || lastResult(t, r)["final_text"] != "second attempt" {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if retry := testkit.Last(events(t, r.stdout), "retry"); retry == nil || !strings.Contains(retry["error"].(string), "after 3s") {
				t.Errorf("retry = %v", retry)
			}
		})
		t.Run("timeout", func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Reply(scripted.Say("I will"), scripted.Hang()).Forever())
			r := runProto(t, typ, srv, "", "--output-format", "stream-json", "--stream-idle-timeout", "10m", "--timeout", "1s", "-p", "x")
			if r.code != 124 || lastResult(t, r)["terminal_reason"] != "timeout" {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
		})
		t.Run("reply cap", func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Reply(scripted.SayBytes(-1, 4096)).Forever())
			r := runProto(t, typ, srv, "", "--max-reply-bytes", "65536", "--max-retries", "1", "-p", "x")
			if r.code != 75 || !strings.Contains(r.stderr, "--max-reply-bytes") || len(srv.Requests()) != 2 {
				t.Fatalf("exit %d after %d requests\n%s", r.code, len(srv.Requests()), r.stderr)
			}
		})
	})
}

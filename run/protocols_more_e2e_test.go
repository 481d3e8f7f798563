package run_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/otlptest"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/model/protocols"
)

// More of the features every wire protocol must keep (see protocols_e2e_test.go).

// A recorded run replays with the same events and no network, in the recorded protocol
// whatever the config says at replay time; a replay asked something else diverges.
func TestProtocolRecordReplay(t *testing.T) {
	t.Parallel()
	eachProtocol(t, func(t *testing.T, typ string) {
		dir := workDir(t, map[string]string{"notes.txt": "hello from the notes\n"})
		cas := filepath.Join(t.TempDir(), "run.jsonl")
		srv := scripted.New(t,
			scripted.Status(429, `{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}`).Header("retry-after-ms", "1"),
			scripted.ToolCalls(scripted.Call("ReadFile", `{"path":"notes.txt"}`)),
			scripted.Text("The notes say hello."))
		rec := kimi(t, nil, invocation{dir: dir, env: protocolEnv(t, typ, srv, "", ""),
			args: []string{"--record", cas, "--output-format", "stream-json", "-p", "read the notes"}})
		if rec.code != 0 {
			t.Fatalf("record: exit %d\n%s", rec.code, rec.stderr)
		}
		checkPaths(t, typ, srv)
		// The replay's HOME has no config: the protocol comes from the cassette.
		rep := kimi(t, nil, invocation{dir: dir, env: replayEnv, args: []string{"--replay", cas, "--output-format", "stream-json", "-p", "read the notes"}})
		if rep.code != 0 {
			t.Fatalf("replay: exit %d\n%s", rep.code, rep.stderr)
		}
		sameEvents(t, rec.stdout, rep.stdout)
		div := kimi(t, nil, invocation{dir: dir, env: replayEnv, args: []string{"--replay", cas, "-p", "read the other notes"}})
		if div.code != 1 || !strings.Contains(div.stderr, "read the other notes") {
			t.Errorf("a diverging replay: exit %d\n%s", div.code, div.stderr)
		}
	})
}

// Kimi CLI's message lines (--print --output-format stream-json) say the same whatever
// the protocol: the assistant's thinking, text and call, then the tool's line.
func TestProtocolKimiLines(t *testing.T) {
	t.Parallel()
	eachProtocol(t, func(t *testing.T, typ string) {
		srv := scripted.New(t,
			scripted.Reply(scripted.Think("The user wants a listing."), scripted.Say("Let me look."), scripted.CallID("c1", "Shell", `{"command":"echo hi"}`)),
			scripted.Text("Done."))
		r := runProto(t, typ, srv, "", "--print", "--output-format", "stream-json", "-p", "go")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		lines := kimiLines(t, r.stdout)
		if len(lines) != 3 {
			t.Fatalf("lines:\n%s", strings.Join(lines, "\n"))
		}
		// Gemini names calls itself (it sends no ids): compare the lines without them.
		id := between(lines[0], `"id":"`, `"`)
		want := []string{
			`{"role":"assistant","content":[{"type":"think","think":"The user wants a listing.","encrypted":null},{"type":"text","text":"Let me look."}],"tool_calls":[{"type":"function","id":"` + id + `","function":{"name":"Shell","arguments":"{\"command\":\"echo hi\"}"}}]}`,
			`{"role":"tool","content":[{"type":"text","text":"<system>Command executed successfully.</system>"},{"type":"text","text":"hi\n"}],"tool_call_id":"` + id + `"}`,
			`{"role":"assistant","content":"Done."}`,
		}
		for i := range want {
			if lines[i] != want[i] {
				t.Errorf("line %d\n got %s\nwant %s", i+1, lines[i], want[i])
			}
		}
	})
}

func between(s, from, to string) string {
	_, rest, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(rest, to)
	return v
}

// A subagent speaks its parent's protocol, from a fresh context.
func TestProtocolSubagent(t *testing.T) {
	t.Parallel()
	eachProtocol(t, func(t *testing.T, typ string) {
		srv := scripted.New(t,
			scripted.ToolCalls(scripted.Call("Agent", `{"description":"count files","prompt":"Count the .txt files in the work dir.","subagent_type":"coder"}`)),
			scripted.ToolCalls(scripted.Call("Shell", `{"command":"ls *.txt | wc -l"}`)),
			scripted.Text("There are 0 text files."),
			scripted.Text("The subagent counted 0 text files."))
		r := runProto(t, typ, srv, "", "--output-format", "stream-json", "-p", "how many text files?")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		reqs := srv.Requests()
		if len(reqs) != 4 {
			t.Fatalf("%d requests", len(reqs))
		}
		sub := reqs[1].Messages()
		if len(sub) != 2 || !strings.HasPrefix(sub[1]["content"].(string), "Count the .txt files") {
			t.Errorf("subagent context = %v", sub)
		}
		parent := reqs[3].Messages()
		if c := parent[len(parent)-1]["content"].(string); !strings.Contains(c, "There are 0 text files.") {
			t.Errorf("Agent result sent to the parent = %q", c)
		}
	})
}

// Compaction asks the provider for a summary without tools, then goes on from it.
func TestProtocolCompaction(t *testing.T) {
	t.Parallel()
	eachProtocol(t, func(t *testing.T, typ string) {
		work, sessions := t.TempDir(), t.TempDir()
		srv := scripted.New(t,
			scripted.Reply(scripted.Say("The parser lives in parse.go."), scripted.Usage(1800, 10, 0)),
			scripted.Text("<current_focus>Writing parser tests.</current_focus>"),
			scripted.Text("Tests written."))
		env := protocolEnv(t, typ, srv, "", "")
		if r := kimi(t, nil, invocation{dir: work, env: env, args: sessionArgs(sessions, "--session", "s1", "-p", "where is the parser?")}); r.code != 0 {
			t.Fatalf("run 1: %d %s", r.code, r.stderr)
		}
		r := kimi(t, nil, invocation{dir: work, env: env, args: sessionArgs(sessions, "--output-format", "stream-json", "--session", "s1", "--max-context-size", "2000", "-p", "write tests")})
		if r.code != 0 {
			t.Fatalf("run 2: %d %s", r.code, r.stderr)
		}
		checkPaths(t, typ, srv)
		if _, ok := srv.Requests()[1].Body["tools"]; ok {
			t.Errorf("the summary request offered tools")
		}
		if n := len(testkit.OfType(events(t, r.stdout), "compaction_end")); n != 1 {
			t.Errorf("%d compactions", n)
		}
		last := srv.Requests()[2].Messages()
		if got := fmt.Sprint(last); !strings.Contains(got, "Writing parser tests.") || strings.Contains(got, "where is the parser?") {
			t.Errorf("after compaction the model was sent %v", last)
		}
	})
}

// --json-schema: an answer that does not match is asked for again, in the protocol's own
// terms, and the one that matches is the result.
func TestProtocolJSONSchema(t *testing.T) {
	t.Parallel()
	schema := filepath.Join(t.TempDir(), "count.json")
	if err := os.WriteFile(schema, []byte(countSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	eachProtocol(t, func(t *testing.T, typ string) {
		srv := scripted.New(t, scripted.Text("There are two."), scripted.Text(`{"count": 2, "files": ["a.go", "b.go"]}`))
		r := runProto(t, typ, srv, "", "--json-schema", schema, "-p", "count the Go files")
		if r.code != 0 || r.stdout != `{"count":2,"files":["a.go","b.go"]}`+"\n" {
			t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
		}
		if n := len(srv.Requests()); n != 2 || !strings.Contains(lastUser(srv, 1), "schema") {
			t.Errorf("%d requests; the re-ask: %q", n, lastUser(srv, 1))
		}
	})
}

// --fallback-model takes over a step that kept failing transiently, on the same
// provider.
func TestProtocolFallbackModel(t *testing.T) {
	t.Parallel()
	overloaded := scripted.Status(503, `{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`)
	eachProtocol(t, func(t *testing.T, typ string) {
		srv := scripted.New(t, overloaded, overloaded, scripted.Text("Done."))
		r := runProto(t, typ, srv, "", "--max-retries", "1", "--fallback-model", "backup-model", "-p", "x")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		var models []string
		for _, req := range srv.Requests() {
			models = append(models, req.Model())
		}
		if strings.Join(models, ",") != "test-model,test-model,backup-model" {
			t.Errorf("models asked = %v", models)
		}
	})
}

// OpenTelemetry: the run and each model call say which provider they spoke to
// (gen_ai.provider.name), and the token counts are the provider's.
func TestProtocolTelemetry(t *testing.T) {
	t.Parallel()
	eachProtocol(t, func(t *testing.T, typ string) {
		srv := scripted.New(t, scripted.Reply(scripted.Say("Hi."), scripted.Usage(70, 5, 20)))
		rcv := otlptest.New(t)
		env := protocolEnv(t, typ, srv, "", "")
		env["OTEL_EXPORTER_OTLP_ENDPOINT"] = rcv.URL
		env["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf"
		// A process of its own: the OTel SDK's state is process-wide.
		r := kimi(t, nil, invocation{env: env, proc: true, args: []string{"-p", "hi"}})
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		runs, chats := rcv.Named("invoke_agent kimi-run"), rcv.Named("chat test-model")
		if len(runs) != 1 || len(chats) != 1 {
			t.Fatalf("spans: %v", spanNames(rcv))
		}
		for _, s := range []otlptest.Span{runs[0], chats[0]} {
			if got := s.Attr("gen_ai.provider.name"); got != protocols.ProviderName(typ) {
				t.Errorf("%s: gen_ai.provider.name = %q, want %q", s.Name, got, protocols.ProviderName(typ))
			}
		}
		if chats[0].Attr("gen_ai.usage.input_tokens") != "70" || chats[0].Attr("gen_ai.usage.cache_read.input_tokens") != "20" {
			t.Errorf("chat span attributes: %v", chats[0].Attributes)
		}
	})
}

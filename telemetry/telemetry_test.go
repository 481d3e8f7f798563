package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/otlptest"
	"github.com/kimi-run/kimi-run/telemetry"
)

const (
	secret    = "sk-telemetry-s3cret-0123456789"
	argMarker = "ARGUMENT-MARKER-42"
	outMarker = "OUTPUT-MARKER-42"
	prompt    = "PROMPT-MARKER-42 fix the tests"
	parentTID = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentSID = "00f067aa0ba902b7"
)

// run feeds t a run with a retried model call, a tool call and a subagent (an Agent call
// whose events carry its id as Parent, as agent/subagent.go emits them), then shuts it down.
func run(t *testing.T, tel *telemetry.Telemetry) {
	t.Helper()
	base := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	cost := 0.25
	args := json.RawMessage(`{"command":"echo ` + argMarker + ` ` + secret + `"}`)
	evs := []event.Event{
		{Time: at(0), Data: event.Init{SessionID: "s1", Model: "kimi-k2", BaseURLHost: "api.example:8443", Tools: []string{"Shell", "Agent"}}},
		{Time: at(1), Data: event.TurnBegin{Turn: 1}},
		{Time: at(2), Data: event.StepBegin{Turn: 1, Step: 1}},
		{Time: at(3), Data: event.Retry{Step: 1, Attempt: 1, MaxAttempts: 3, DelayMS: 10, HTTPStatus: 503, Error: "busy " + secret}},
		{Time: at(10), Data: event.ToolCall{Step: 1, ID: "c1", Name: "Shell", Arguments: args}},
		{Time: at(11), Data: event.ToolCall{Step: 1, ID: "c2", Name: "Agent", Arguments: json.RawMessage(`{"prompt":"` + argMarker + `"}`)}},
		{Time: at(12), Data: event.Usage{Step: 1, InputTokens: 100, OutputTokens: 20, CachedTokens: 40}},
		{Time: at(20), Data: event.ToolResult{Step: 1, ID: "c1", Name: "Shell", IsError: true, Output: outMarker + " " + secret, DurationMS: 10}},
		{Time: at(21), Parent: "c2", Data: event.TurnBegin{Turn: 1, Node: "describe " + argMarker}},
		{Time: at(22), Parent: "c2", Data: event.StepBegin{Turn: 1, Step: 1}},
		{Time: at(30), Parent: "c2", Data: event.Usage{Step: 1, InputTokens: 50, OutputTokens: 5}},
		{Time: at(31), Parent: "c2", Data: event.TurnEnd{Turn: 1, Steps: 1, StopReason: "completed"}},
		{Time: at(32), Data: event.ToolResult{Step: 1, ID: "c2", Name: "Agent", Output: outMarker, DurationMS: 21}},
		{Time: at(33), Data: event.StepBegin{Turn: 1, Step: 2}},
		{Time: at(40), Data: event.Usage{Step: 2, InputTokens: 200, OutputTokens: 30}},
		{Time: at(41), Data: event.TurnEnd{Turn: 1, Steps: 2, StopReason: "completed"}},
		{Time: at(42), Data: event.Result{Status: "error", TerminalReason: "max_steps", ExitCode: 3,
			FinalText: outMarker, Steps: 3, ToolCalls: 2, Usage: event.UsageTotals{InputTokens: 350, OutputTokens: 55, CachedTokens: 40, CostUSD: &cost},
			Error: &event.ErrorInfo{Kind: "max_steps", Message: "stopped " + secret}}},
	}
	tel.SetPrompt(prompt)
	for _, e := range evs {
		tel.Emit(e)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

func scrub(s string) string {
	return string(bytes.ReplaceAll([]byte(s), []byte(secret), []byte("[redacted]")))
}

func start(t *testing.T, content bool) *telemetry.Telemetry {
	t.Helper()
	t.Setenv("TRACEPARENT", "00-"+parentTID+"-"+parentSID+"-01")
	t.Setenv("OTEL_SERVICE_NAME", "ci-agent")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=ci,team=infra")
	tel, warnings, err := telemetry.New(context.Background(), telemetry.Options{Getenv: getenv, Version: "1.2.3", Content: content, Scrub: scrub})
	if err != nil || len(warnings) > 0 {
		t.Fatalf("New: %v %v", err, warnings)
	}
	return tel
}

func TestSpansAndMetrics(t *testing.T) {
	for _, proto := range []string{"http/protobuf", "grpc"} {
		t.Run(proto, func(t *testing.T) {
			rcv := otlptest.New(t)
			endpoint := rcv.URL
			if proto == "grpc" {
				endpoint = rcv.Addr
			}
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", proto)
			run(t, start(t, false))

			runs := rcv.Named("invoke_agent kimi-run")
			if len(runs) != 1 {
				t.Fatalf("%d run spans; spans: %v", len(runs), names(rcv.Spans()))
			}
			root := runs[0]
			if root.TraceID() != parentTID || root.ParentID() != parentSID {
				t.Errorf("run span trace %s parent %s; want the TRACEPARENT's %s, %s", root.TraceID(), root.ParentID(), parentTID, parentSID)
			}
			if root.Resource["service.name"] != "ci-agent" || root.Resource["service.version"] != "1.2.3" || root.Resource["team"] != "infra" {
				t.Errorf("resource = %v", root.Resource)
			}
			for k, want := range map[string]string{"kimi_run.exit_code": "3", "kimi_run.terminal_reason": "max_steps",
				"gen_ai.usage.input_tokens": "350", "session.id": "s1", "gen_ai.request.model": "kimi-k2", "kimi_run.cost_usd": "0.25",
				// The semantic conventions' split: the host alone, the port apart.
				"server.address": "api.example", "server.port": "8443"} {
				if got := root.Attr(k); got != want {
					t.Errorf("run span %s = %q, want %q", k, got, want)
				}
			}
			if root.Status.GetCode() != 2 || root.Status.GetMessage() != "stopped [redacted]" {
				t.Errorf("run span status = %v", root.Status)
			}

			turns := rcv.Named("turn")
			calls := rcv.Named("chat kimi-k2")
			if len(turns) != 2 || len(calls) != 3 {
				t.Fatalf("%d turns, %d model calls; spans: %v", len(turns), len(calls), names(rcv.Spans()))
			}
			shell, agent := one(t, rcv, "execute_tool Shell"), one(t, rcv, "execute_tool Agent")
			main, sub := turns[0], turns[1]
			if main.Has("kimi_run.parent_tool_call_id") {
				main, sub = sub, main
			}
			if main.ParentID() != root.SpanID() || shell.ParentID() != main.SpanID() || agent.ParentID() != main.SpanID() {
				t.Errorf("the turn is not under the run, or the tool calls not under the turn")
			}
			if sub.ParentID() != agent.SpanID() {
				t.Errorf("the subagent's turn is not nested under its Agent call")
			}
			var retried, subCalls int
			for _, c := range calls {
				if c.ParentID() == sub.SpanID() {
					subCalls++
				}
				if c.Attr("kimi_run.retries") == "1" {
					retried++
					if c.Attr("gen_ai.usage.input_tokens") != "100" || c.Attr("gen_ai.usage.cache_read.input_tokens") != "40" || len(c.Events) != 1 {
						t.Errorf("retried model call: attributes %v, events %v", c.Attributes, c.Events)
					}
				}
			}
			if retried != 1 || subCalls != 1 {
				t.Errorf("%d retried calls, %d subagent calls; want 1 and 1", retried, subCalls)
			}
			if shell.Status.GetCode() != 2 || shell.Attr("gen_ai.tool.name") != "Shell" || shell.Attr("kimi_run.tool.is_error") != "true" {
				t.Errorf("failed tool span: status %v, attributes %v", shell.Status, shell.Attributes)
			}
			if d := time.Duration(shell.EndTimeUnixNano - shell.StartTimeUnixNano); d != 10*time.Millisecond {
				t.Errorf("tool span lasts %v, want the events' 10ms", d)
			}

			// Metrics.
			for _, c := range []struct {
				name  string
				match map[string]string
				want  float64
			}{
				{"kimi_run.tokens", map[string]string{"gen_ai.token.type": "input"}, 350},
				{"kimi_run.tokens", map[string]string{"gen_ai.token.type": "output"}, 55},
				{"kimi_run.tokens", map[string]string{"gen_ai.token.type": "cached"}, 40},
				{"kimi_run.cost", nil, 0.25},
				{"kimi_run.runs", map[string]string{"exit_code": "3", "terminal_reason": "max_steps"}, 1},
				{"kimi_run.tool_call.duration", map[string]string{"gen_ai.tool.name": "Shell", "error": "true"}, 0.01},
			} {
				if got := rcv.Sum(c.name, c.match); got != c.want {
					t.Errorf("%s %v = %v, want %v", c.name, c.match, got, c.want)
				}
			}
			if n := rcv.Count("kimi_run.model_call.duration", map[string]string{"outcome": "ok"}); n != 3 {
				t.Errorf("%d model call durations, want 3", n)
			}

			// No content, no secret, anywhere in what was sent.
			raw := rcv.Raw()
			for _, s := range []string{secret, argMarker, outMarker, "PROMPT-MARKER"} {
				if bytes.Contains(raw, []byte(s)) {
					t.Errorf("the collector received %q", s)
				}
			}
		})
	}
}

// With Options.Content the prompt, arguments, outputs and the final answer are on the
// spans, scrubbed of secrets.
func TestContentIsOptIn(t *testing.T) {
	rcv := otlptest.New(t)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", rcv.URL+"/v1/traces")
	run(t, start(t, true))
	root := one(t, rcv, "invoke_agent kimi-run")
	if root.Attr("kimi_run.prompt") != prompt || root.Attr("kimi_run.final_text") != outMarker {
		t.Errorf("run span: prompt %q, final text %q", root.Attr("kimi_run.prompt"), root.Attr("kimi_run.final_text"))
	}
	shell := one(t, rcv, "execute_tool Shell")
	if shell.Attr("gen_ai.tool.call.arguments") != `{"command":"echo `+argMarker+` [redacted]"}` || shell.Attr("gen_ai.tool.call.result") != outMarker+" [redacted]" {
		t.Errorf("tool span attributes: %v", shell.Attributes)
	}
	if bytes.Contains(rcv.Raw(), []byte(secret)) {
		t.Errorf("the collector received the secret")
	}
	if rcv.Sum("kimi_run.tokens", nil) != 0 {
		t.Errorf("metrics were sent with only a traces endpoint")
	}
}

// Headers, gzip and a per-signal endpoint, as the OTLP exporter spec reads them.
func TestExporterSettings(t *testing.T) {
	rcv := otlptest.New(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1") // overridden below
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", rcv.URL+"/v1/traces")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20tok3n,x-tenant=ci")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "gzip")
	run(t, start(t, false))
	h := rcv.Header()
	if h.Get("Authorization") != "Bearer tok3n" || h.Get("X-Tenant") != "ci" || h.Get("Content-Encoding") != "gzip" {
		t.Errorf("request headers = %v", h)
	}
	if len(rcv.Named("invoke_agent kimi-run")) != 1 {
		t.Errorf("spans: %v", names(rcv.Spans()))
	}
}

func TestEnabled(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://c:4318/v1/metrics"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}, false},
	}
	for _, tt := range tests {
		if got := telemetry.Enabled(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("Enabled(%v) = %v, want %v", tt.env, got, tt.want)
		}
	}
}

// A collector that is down or never answers costs the run at most the flush bound, and
// Shutdown says what was lost.
func TestUnreachableCollector(t *testing.T) {
	for name, endpoint := range map[string]string{"closed port": otlptest.ClosedPort(t), "never answers": otlptest.Stall(t)} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
			t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "200")
			tel, _, err := telemetry.New(context.Background(), telemetry.Options{Getenv: getenv})
			if err != nil {
				t.Fatal(err)
			}
			if tel.FlushTimeout() != 200*time.Millisecond {
				t.Errorf("flush bound = %v", tel.FlushTimeout())
			}
			tel.Emit(event.Event{Time: time.Now(), Data: event.Result{ExitCode: 0, TerminalReason: "completed"}})
			if err := tel.Shutdown(context.Background()); err == nil {
				t.Errorf("Shutdown reported no error for an unreachable collector")
			}
		})
	}
}

func one(t *testing.T, rcv *otlptest.Receiver, name string) otlptest.Span {
	t.Helper()
	s := rcv.Named(name)
	if len(s) != 1 {
		t.Fatalf("%d spans %q; spans: %v", len(s), name, names(rcv.Spans()))
	}
	return s[0]
}

func names(ss []otlptest.Span) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func getenv(k string) string { return os.Getenv(k) }

// A collector that is down costs one line on stderr, which names every signal that did not
// get through and why (issue 29 #5: two lines for a stalled collector, and only metrics
// named for a refused connection).
func TestLostTelemetryIsOneLine(t *testing.T) {
	for name, endpoint := range map[string]string{"closed port": otlptest.ClosedPort(t), "never answers": otlptest.Stall(t)} {
		for _, proto := range []string{"http/protobuf", "grpc"} {
			t.Run(name+"/"+proto, func(t *testing.T) {
				env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": proto, "OTEL_EXPORTER_OTLP_TIMEOUT": "300"}
				tel, _, err := telemetry.New(context.Background(), telemetry.Options{Getenv: func(k string) string { return env[k] }, Version: "1"})
				if err != nil {
					t.Fatal(err)
				}
				tel.Emit(event.Event{Time: time.Now(), Data: event.Init{SessionID: "s", Model: "m", BaseURLHost: "h"}})
				tel.Emit(event.Event{Time: time.Now(), Data: event.Result{Status: "ok", ExitCode: 0}})
				err = tel.Shutdown(context.Background())
				var lost *telemetry.LostError
				if !errors.As(err, &lost) {
					t.Fatalf("shutdown: %v, want a LostError", err)
				}
				msg := err.Error()
				if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "traces: ") || !strings.Contains(msg, "; metrics: ") {
					t.Errorf("the message is not one line naming traces and metrics:\n%s", msg)
				}
				if !slices.Equal(lost.Signals, []string{"traces", "metrics"}) {
					t.Errorf("lost signals %v", lost.Signals)
				}
			})
		}
	}
}
